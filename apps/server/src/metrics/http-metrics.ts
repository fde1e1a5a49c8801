import type { Request, RequestHandler } from "express";
import type { Metrics } from "./metrics.js";

/** What express-openapi-validator leaves on a request it matched to an operation of the spec. */
type MatchedRequest = Request & { openapi?: { schema?: { operationId?: string } } };

/**
 * Counts every answered request in `skillrun_http_requests_total{operation,status}`. The
 * operation is a bounded name, never the path a client sent: the spec's operationId when the
 * validator matched one, `/healthz` or `/metrics`, `unmatched` for any other address under
 * `/v1`, and `site` for the pages beside the API (docs, dashboard, demo).
 */
export function countRequests(metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    // The path as it arrived: routing rewrites req.url on the way.
    const path = req.path;
    res.once("close", () => {
      metrics.httpRequests.inc({
        operation: operationOf(req as MatchedRequest, path),
        status: String(res.statusCode),
      });
    });
    next();
  };
}

function operationOf(req: MatchedRequest, path: string): string {
  const operationId = req.openapi?.schema?.operationId;
  if (typeof operationId === "string") return operationId;
  if (path === "/healthz" || path === "/metrics") return path;
  return path === "/v1" || path.startsWith("/v1/") ? "unmatched" : "site";
}
