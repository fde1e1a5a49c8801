import { readFileSync } from "node:fs";
// The assets' folder only: the package's index would load and run Swagger UI's browser bundle in
// the server, for nothing (docs/decisions/0015-load-only-what-the-server-runs.md).
import { createRequire } from "node:module";
import express, { type Response, type Router } from "express";

/**
 * What the reference's pages may load: the server's own scripts and the spec. Swagger UI sets
 * inline styles on its elements, so styles may be inline; scripts may not. No frames.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

function secure(res: Response): void {
  res.set("Content-Security-Policy", DOCS_CSP);
  res.set("X-Content-Type-Options", "nosniff");
  res.set("Referrer-Policy", "no-referrer");
}

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
  // A key typed into the reference stays in that page only: kept in localStorage it would outlive
  // the tab on an origin the dashboard shares.
  persistAuthorization: false,
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
    secure(res);
    res.type("application/yaml").send(spec);
  });
  router.get(["/docs", "/docs/"], (_req, res) => {
    secure(res);
    res.type("html").send(page);
  });
  router.get("/docs/init.js", (_req, res) => {
    secure(res);
    res.type("application/javascript").send(init);
  });
  router.use(
    "/docs/assets",
    express.static(swaggerUiDir(), { index: false, setHeaders: (res) => secure(res) }),
  );
  return router;
}

function swaggerUiDir(): string {
  const getAbsoluteFSPath = createRequire(import.meta.url)(
    "swagger-ui-dist/absolute-path.js",
  ) as () => string;
  return getAbsoluteFSPath();
}
