import express, { type Router } from "express";

/**
 * The demo shop at /demo/: a static page the browser example skill drives, so a new user's
 * first browser run works without internet. No API key: it is a web page, not the API.
 */
export function demoRouter(demoDir: string): Router {
  const router = express.Router();
  router.get("/demo", (req, res, next) => {
    // Routing is not strict, so this route also sees /demo/, which the files below answer.
    if (req.path !== "/demo") return next();
    res.redirect(301, "/demo/");
  });
  router.use("/demo", express.static(demoDir, { index: "index.html", fallthrough: true }));
  return router;
}
