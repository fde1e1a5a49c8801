import type { Request, RequestHandler } from "express";
import { incomingTraceparent, type Tracing, traceIdOf } from "./tracing.js";

declare global {
  namespace Express {
    interface Request {
      /** The W3C traceparent of the request's span, when tracing is on. */
      traceparent?: string;
      /** Its trace id, which the request's log lines carry as `trace_id`. */
      traceId?: string;
    }
  }
}

/** What express-openapi-validator leaves on a request it matched to an operation of the spec. */
type MatchedRequest = Request & { openapi?: { schema?: { operationId?: string } } };

/**
 * A server span per request, the child of the caller's `traceparent` when it sent one, named
 * after the operation once it is known (`POST startRun`); its context is kept on the request
 * (`req.traceparent`) for what the request queues, and its trace id goes into the log lines.
 */
export function requestSpans(tracing: Tracing): RequestHandler {
  const { tracer, module } = tracing;
  return (req, res, next) => {
    const { method } = req;
    const parent = incomingTraceparent(req.headers.traceparent);
    const span = tracer.start(method, {
      kind: "server",
      ...(parent && { parent }),
      attributes: { "http.request.method": method, "url.path": req.path },
    });
    req.traceparent = module.traceparentOf(span);
    req.traceId = traceIdOf(req.traceparent);
    req.log = req.log.child({ trace_id: req.traceId });
    res.once("close", () => {
      const operation = (req as MatchedRequest).openapi?.schema?.operationId;
      if (operation !== undefined) {
        span.updateName(`${method} ${operation}`);
        span.setAttribute("http.route", operation);
      }
      span.setAttribute("http.response.status_code", res.statusCode);
      module.endSpan(span, res.statusCode >= 500 ? `status ${res.statusCode}` : undefined);
    });
    next();
  };
}
