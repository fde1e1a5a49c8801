import express, { type RequestHandler, type Router } from "express";

// The API's addresses, as Express matches `app.use("/v1", …)`: any case, `/v1` and below it.
const API_PATH = /^\/v1(?:\/|$)/i;

/**
 * The site served beside the API (the docs, the demo, the dashboard) as one stage that a request
 * to the API passes at once. None of their routes is under /v1, so skipping them changes no
 * answer, and matching their dozen routes and static folders one by one is a good part of
 * Express's routing work on every API request (docs/decisions/0005-site-beside-the-api.md).
 */
export function besideTheApi(...routers: Router[]): RequestHandler {
  const site = express.Router();
  for (const router of routers) site.use(router);
  return (req, res, next) => {
    if (API_PATH.test(req.path)) next();
    else site(req, res, next);
  };
}
