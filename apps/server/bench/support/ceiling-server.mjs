// The ceiling of the API benchmark: a bare Express 5 app that answers GET /v1/run/{id} with a
// constant RunSession (the one the real server answers, passed as argv[2]) and does nothing else:
// no key, no validation, no database, no logging. What Skillrun serves is measured against it.
import express from "express";

const body = JSON.parse(process.argv[2] ?? "{}");
const app = express();
app.disable("x-powered-by");
app.get("/v1/run/:id", (_req, res) => {
  res.json(body);
});
const server = app.listen(0, "127.0.0.1", () => {
  console.log(`ceiling listening on http://127.0.0.1:${server.address().port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
