import express, { type ErrorRequestHandler, type Router } from "express";
import type { Clock } from "../domain/clock.js";
import { BACKOFFICE, sendErrorPage } from "./backoffice-html.js";
import { invoiceRoutes } from "./backoffice-invoices.js";
import { loginRoutes, requireSession, sessionOf } from "./backoffice-login.js";
import { SessionStore } from "./backoffice-sessions.js";
import { uploadRoutes } from "./backoffice-upload.js";

/**
 * The demo back office at /demo/backoffice/: a login, a paginated invoice table with a CSV
 * export, and an upload form, for the example skills that automate such work. Server-rendered
 * HTML, no API key (it is a web page, not the API); its sessions live in memory, per app.
 */
export function backofficeRouter(clock: Clock): Router {
  const sessions = new SessionStore(clock);
  const router = express.Router();
  router.use((_req, res, next) => {
    // Pages behind a login are not kept by browsers or proxies.
    res.set("Cache-Control", "no-store");
    next();
  });
  router.get("/", (_req, res) => {
    res.redirect(303, `${BACKOFFICE}/invoices`);
  });
  loginRoutes(router, sessions, clock);

  // Everything below needs a session.
  router.use(requireSession(sessions));
  invoiceRoutes(router);
  uploadRoutes(router);
  router.use((_req, res) => {
    sendErrorPage(res, 404, "Not found", "There is no such page in the back office.", true);
  });
  router.use(pageErrors);
  return router;
}

// What the body parser of the login form throws, as a page; anything else is the app's 500.
const pageErrors: ErrorRequestHandler = (error: unknown, _req, res, next) => {
  const status = (error as { status?: unknown } | null)?.status;
  if (res.headersSent || typeof status !== "number" || status < 400 || status >= 500) {
    next(error);
    return;
  }
  const signedIn = sessionOf(res) !== undefined;
  if (status === 413) {
    sendErrorPage(res, 413, "Too large", "The form sent is too large.", signedIn);
  } else {
    sendErrorPage(res, 400, "Bad request", "The form sent could not be read.", signedIn);
  }
};
