import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import type { RequestHandler } from "express";
import type { Logger } from "pino";
import { redactUrl } from "./log-redaction.js";

declare global {
  namespace Express {
    interface Request {
      /** The request's logger: every line it writes carries the request id. */
      log: Logger;
    }
  }
}

// A caller's X-Request-Id is kept when it is a sane token; anything else is replaced.
const ACCEPTABLE_REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * JSON access logs with a request id, which is echoed in the X-Request-Id response header: one
 * line per request once its response is done, with what an operator reads in any access log
 * (method, address, status, size, time, client), at `warn` for a 4xx, `error` for a 5xx; a
 * request its client left before the answer was complete says "request aborted".
 *
 * Written here rather than with pino-http, which serializes the whole request into a child logger
 * on arrival and keeps three listeners and two loggers per request, a large share of a simple
 * request's cost (docs/decisions/0006-own-access-log-middleware.md); this one builds one child
 * and one line. Logging a chosen list of fields also keeps
 * credentials out by construction: the `Authorization`, `Cookie` and `X-API-Key` headers and the
 * demo back office's `Set-Cookie` are never read, and the address's credential parameters are
 * redacted (log-redaction.ts).
 */
export function requestLogging(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const given = req.headers["x-request-id"];
    const id =
      typeof given === "string" && ACCEPTABLE_REQUEST_ID.test(given) ? given : randomUUID();
    res.setHeader("X-Request-Id", id);
    const started = performance.now();
    // Read on arrival: routing rewrites req.url, and the socket may be gone by the end.
    const { method, originalUrl } = req;
    const remoteAddress = req.socket.remoteAddress;
    req.log = logger.child({ reqId: id });
    res.once("close", () => {
      // A live stream ends this way too, when its client leaves: its level is its status's.
      const aborted = req.readableAborted || !res.writableEnded;
      const level = res.statusCode >= 500 ? "error" : res.statusCode >= 400 ? "warn" : "info";
      logger[level](
        {
          reqId: id,
          // Set by the request's span when tracing is on (tracing/request-spans.ts).
          ...(req.traceId !== undefined && { trace_id: req.traceId }),
          req: {
            method,
            url: redactUrl(originalUrl),
            remoteAddress,
            userAgent: req.headers["user-agent"],
          },
          res: { statusCode: res.statusCode, contentLength: res.getHeader("content-length") },
          responseTime: Math.round(performance.now() - started),
        },
        aborted ? "request aborted" : "request completed",
      );
    });
    next();
  };
}
