import type { Response } from "express";
import { type AppError, PreconditionFailed, RangeNotSatisfiable } from "../domain/errors.js";

// What `send` may already have set when it gives up on a file; a JSON error must not carry them.
const FILE_HEADERS = [
  "Content-Type",
  "Content-Length",
  "Content-Disposition",
  "Content-Security-Policy",
  "X-Content-Type-Options",
  "Accept-Ranges",
  "Cache-Control",
  "ETag",
  "Last-Modified",
];

type SendError = Error & { status?: number; code?: string };

/**
 * Sends a file of the store with res.sendFile (the `send` package), which answers Range (206,
 * 416), If-Range and the conditional requests (304, 412) itself, with a weak ETag and
 * Last-Modified. Resolves once the file is sent (or the caller went away); rejects with the
 * contract's error when `send` refused or failed before anything was sent: `notFound` when the
 * file is gone.
 */
export function sendStoredFile(
  res: Response,
  path: string,
  headers: Record<string, string>,
  notFound: () => AppError,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const options = {
      // A signed address is one caller's: shared caches keep nothing; browsers revalidate.
      cacheControl: false,
      headers: { ...headers, "Cache-Control": "private, max-age=0" },
    };
    res.sendFile(path, options, (error?: SendError) => {
      if (!error) resolve();
      else if (res.headersSent || error.code === "ECONNABORTED") {
        abandon(res, error);
        resolve();
      } else reject(refusal(res, error, notFound));
    });
  });
}

// Too late for an error response: cut the transfer short so the client sees it fail.
function abandon(res: Response, error: SendError): void {
  if (error.code !== "ECONNABORTED") res.req.log.error({ err: error }, "file transfer failed");
  res.destroy();
}

/** The contract's error for a file `send` refused, without the file's headers. */
function refusal(res: Response, error: SendError, notFound: () => AppError): Error {
  for (const header of FILE_HEADERS) res.removeHeader(header);
  if (error.status === 416) return new RangeNotSatisfiable(); // keeps Content-Range: bytes */size
  res.removeHeader("Content-Range");
  if (error.status === 404) return notFound(); // deleted since it was found
  if (error.status === 412) return new PreconditionFailed();
  return error;
}
