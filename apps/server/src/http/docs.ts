import { readFileSync } from "node:fs";
// The assets' folder only: the package's index would load and run Swagger UI's browser bundle in
// the server, for nothing (docs/decisions/0015-load-only-what-the-server-runs.md).
import { createRequire } from "node:module";
import express, { type Router } from "express";

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Skillrun API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>`;

// Kept in a file of its own so the page needs no inline script.
const init = `window.ui = SwaggerUIBundle({
  url: "/openapi.yaml",
  dom_id: "#reference",
  persistAuthorization: true,
  tryItOutEnabled: true,
});`;

/**
 * The interactive API reference at /docs (Swagger UI, served from the swagger-ui-dist package,
 * no CDN) and the spec it renders at /openapi.yaml — the same file the validator enforces.
 */
export function docsRouter(specPath: string): Router {
  const spec = readFileSync(specPath, "utf8");
  const router = express.Router();
  router.get("/openapi.yaml", (_req, res) => {
    res.type("application/yaml").send(spec);
  });
  router.get(["/docs", "/docs/"], (_req, res) => {
    res.type("html").send(page);
  });
  router.get("/docs/init.js", (_req, res) => {
    res.type("application/javascript").send(init);
  });
  router.use("/docs/assets", express.static(swaggerUiDir(), { index: false }));
  return router;
}

function swaggerUiDir(): string {
  const getAbsoluteFSPath = createRequire(import.meta.url)(
    "swagger-ui-dist/absolute-path.js",
  ) as () => string;
  return getAbsoluteFSPath();
}
