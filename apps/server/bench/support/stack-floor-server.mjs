// The floor the libraries Skillrun is built on set for the API benchmark: Express 5 with the
// server's own access log (http/request-logging.ts, one JSON line per request to stdout) and its
// own express-openapi-validator stages over openapi.yaml, answering GET /v1/run/{id} with a
// constant answer (argv[2]): a RunSession, or the page of runs of GET /v1/run/list, which the
// validator takes for listRuns before this route answers it. No database (any bearer key is
// alice's), none of Skillrun's other middleware or its routes. What it serves bounds what
// Skillrun can: BENCHMARKS.md compares both to the bare ceiling. Reads the built server
// (`npm run build`).
import express from "express";
import { pino } from "pino";
import { errorHandler } from "../../dist/http/error-handler.js";
import { requestLogging } from "../../dist/http/request-logging.js";
import { openApiValidator } from "../../dist/http/validator.js";
import { paths } from "../../dist/paths.js";

const body = JSON.parse(process.argv[2] ?? "{}");
const app = express();
app.disable("x-powered-by");
app.use(requestLogging(pino()));
app.use(
  openApiValidator({
    specPath: paths.openapi,
    apiKeys: { ownerOf: async () => "alice" },
    validateResponses: false,
    multipart: (_req, _res, next) => next(),
  }),
);
app.get("/v1/run/:id", (_req, res) => {
  res.json(body);
});
app.use(errorHandler);
const server = app.listen(0, "127.0.0.1", () => {
  console.log(`stack floor listening on http://127.0.0.1:${server.address().port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
