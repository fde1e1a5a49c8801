import express, { type Router } from "express";
import type { Clock } from "../domain/clock.js";
import { backofficeRouter } from "./backoffice.js";

/**
 * The demo site at /demo/: the shop (static pages in `demoDir`) and the back office (pages
 * rendered by the server, see demo/backoffice.ts) that the example browser skills drive, so a
 * new user's first browser run works without internet. No API key: they are web pages, not the
 * API.
 */
export function demoRouter(demoDir: string, clock: Clock): Router {
  const router = express.Router();
  router.get("/demo", (req, res, next) => {
    // Routing is not strict, so this route also sees /demo/, which the files below answer.
    if (req.path !== "/demo") return next();
    res.redirect(301, "/demo/");
  });
  router.use("/demo/backoffice", backofficeRouter(clock));
  // `send` refuses a path that climbs out of demoDir (.., %2e%2e, %2f): it falls through to 404.
  router.use("/demo", express.static(demoDir, { index: "index.html", fallthrough: true }));
  return router;
}
