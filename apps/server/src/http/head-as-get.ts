import type { RequestHandler } from "express";

const heads = new WeakSet<object>();

/**
 * `HEAD` wherever `GET` is an operation: the validator knows only the methods openapi.yaml
 * declares, so a HEAD request passes through it as the GET it stands for and is a HEAD again
 * after it. Node's response decided at its start that a HEAD answer has no body, so the GET
 * handler's headers go out without it. Express routes HEAD to GET handlers itself.
 */
export function headAsGet(): { before: RequestHandler; after: RequestHandler } {
  return {
    before(req, _res, next) {
      if (req.method === "HEAD") {
        heads.add(req);
        req.method = "GET";
      }
      next();
    },
    after(req, _res, next) {
      if (heads.has(req)) req.method = "HEAD";
      next();
    },
  };
}
