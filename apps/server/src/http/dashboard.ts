import { existsSync } from "node:fs";
import { join } from "node:path";
import express, { type Response, type Router } from "express";

/**
 * What the dashboard's pages may load: only the server's own scripts, styles, images and media
 * (screenshots and videos come from signed addresses under /v1), and calls to the server's API.
 * No inline script or style, no frames, no plugins.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const NOT_BUILT = `The dashboard has not been built: run \`npm run build\` (or \`npm start\`, which builds
it) in the repository, then reload this page. The API is served at /v1 and its reference at /docs.
`;

function secure(res: Response): void {
  res.set("Content-Security-Policy", DASHBOARD_CSP);
  res.set("X-Content-Type-Options", "nosniff");
  res.set("Referrer-Policy", "no-referrer");
}

/**
 * The dashboard at /ui/: the static files Vite built into `distDir` (hashed assets cached for
 * good, the page itself never), and that page for every other address under /ui/ so that its
 * own routes can be opened and reloaded. `/` redirects to it. Without a build, /ui/ says so
 * (503) instead of failing. It reads nothing but the public API, with the user's key.
 */
export function dashboardRouter(distDir: string): Router {
  const router = express.Router();
  const indexFile = join(distDir, "index.html");
  router.get("/", (_req, res) => {
    res.redirect(302, "/ui/");
  });
  router.get("/ui", (req, res, next) => {
    // Routing is not strict, so this route also sees /ui/, which the handlers below answer.
    if (req.path !== "/ui") return next();
    res.redirect(301, "/ui/");
  });
  router.use(
    "/ui/assets",
    express.static(join(distDir, "assets"), {
      index: false,
      fallthrough: false,
      immutable: true,
      maxAge: "1y",
      setHeaders: (res) => secure(res),
    }),
  );
  router.get(["/ui/", "/ui/{*rest}"], (_req, res) => {
    secure(res);
    if (!existsSync(indexFile)) {
      res.status(503).type("text/plain").send(NOT_BUILT);
      return;
    }
    res.set("Cache-Control", "no-cache");
    res.sendFile(indexFile);
  });
  return router;
}
