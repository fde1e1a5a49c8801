import type { RequestHandler } from "express";
import { RouteNotFound } from "../domain/errors.js";

/**
 * A path segment that is `.` or `..`, written plainly or percent-encoded (`%2E`), names no route:
 * URL resolution removes such segments, so `/v1/run/%2E/video` would otherwise be taken for
 * `/v1/run/video` by one layer and for the video of a run called `.` by another. No id has that
 * form, so the answer is FastAPI's plain 404, before authentication.
 */
export function refuseDotSegments(): RequestHandler {
  return (req, _res, next) => {
    const segments = req.path.split("/").map((segment) => segment.replace(/%2e/gi, "."));
    next(
      segments.some((segment) => segment === "." || segment === "..")
        ? new RouteNotFound()
        : undefined,
    );
  };
}
