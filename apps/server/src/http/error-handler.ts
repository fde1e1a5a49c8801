import type { ErrorRequestHandler, Request } from "express";
import { AppError, RequestInvalid, TooManyRequests } from "../domain/errors.js";
import {
  fromBodyParserError,
  fromValidatorError,
  isValidatorError,
} from "./fastapi/validation-issues.js";

/**
 * The one place errors become responses, always in the contract's shapes: 422 with a list of
 * `{loc, msg, type}`, `{"detail": "…"}` otherwise, never a stack trace.
 */
export const errorHandler: ErrorRequestHandler = (error, req, res, _next) => {
  if (res.headersSent) {
    // Too late for an error body: cut the response short so the client sees it fail.
    req.log.error({ err: error }, "error after the response started");
    res.destroy();
    return;
  }
  const known = toAppError(error, req);
  if (!known) {
    req.log.error({ err: error }, "unexpected error");
    res.status(500).json({ detail: "Internal Server Error" });
    return;
  }
  if (known.status === 401) res.setHeader("WWW-Authenticate", "Bearer");
  if (known instanceof TooManyRequests) res.setHeader("Retry-After", known.retryAfterSeconds);
  res.status(known.status);
  if (known instanceof RequestInvalid) res.json({ detail: known.issues });
  else res.json({ detail: known.message });
};

function toAppError(error: unknown, req: Request): AppError | null {
  if (error instanceof AppError) return error;
  const bodyIssue = fromBodyParserError(error);
  if (bodyIssue) return bodyIssue;
  if (isValidatorError(error)) return fromValidatorError(error, req);
  return null;
}
