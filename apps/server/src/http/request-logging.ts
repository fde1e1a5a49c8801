import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { pinoHttp } from "pino-http";
import { redactHeaders, redactQuery, redactUrl } from "./log-redaction.js";

// A caller's X-Request-Id is kept when it is a sane token; anything else is replaced.
const ACCEPTABLE_REQUEST_ID = /^[\w.:-]{1,128}$/;

/** JSON access logs with a request id, which is echoed in the X-Request-Id response header. */
export function requestLogging(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId(req, res) {
      const given = req.headers["x-request-id"];
      const id =
        typeof given === "string" && ACCEPTABLE_REQUEST_ID.test(given) ? given : randomUUID();
      res.setHeader("X-Request-Id", id);
      return id;
    },
    // Credentials never reach the logs, wherever a caller put them, nor the session cookies the
    // demo back office sets (see log-redaction.ts). The request's loggers (`req.log`) are bound
    // to this serialization too.
    serializers: {
      req(req: { url?: string; query?: unknown; headers?: Record<string, unknown> }) {
        return {
          ...req,
          url: req.url === undefined ? undefined : redactUrl(req.url),
          query: redactQuery(req.query),
          headers: redactHeaders(req.headers),
        };
      },
      res(res: { headers?: Record<string, unknown> }) {
        return { ...res, headers: redactHeaders(res.headers) };
      },
    },
    customLogLevel(_req, res, error) {
      if (error || res.statusCode >= 500) return "error";
      return res.statusCode >= 400 ? "warn" : "info";
    },
  });
}
