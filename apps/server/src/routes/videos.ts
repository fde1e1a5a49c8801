import express, { type Response, type Router } from "express";
import {
  PreconditionFailed,
  RangeNotSatisfiable,
  VideoLinkExpired,
  VideoLinkInvalid,
  VideoNotFound,
} from "../domain/errors.js";
import { operation } from "../http/operation.js";
import type { VideoUrlSigner } from "../videos/signed-url.js";
import type { VideoStore } from "../videos/video-store.js";

// res.sendFile (the `send` package) answers Range (206, 416), If-Range and the conditional
// requests (304, 412) itself, with a weak ETag and Last-Modified.
const SEND_OPTIONS = {
  // A signed address is one caller's: shared caches keep nothing; browsers revalidate.
  cacheControl: false,
  headers: { "Content-Type": "video/webm", "Cache-Control": "private, max-age=0" },
};

// What `send` may already have set when it gives up on a file; a JSON error must not carry them.
const FILE_HEADERS = [
  "Content-Type",
  "Content-Length",
  "Accept-Ranges",
  "Cache-Control",
  "ETag",
  "Last-Modified",
];

/**
 * `GET /run/{id}/video`: the run's video for whoever holds a signed address from `video_url`.
 * No API key (the spec's `security: []`): the signature is the authorisation.
 */
export function videosRouter(deps: { videos: VideoStore; signer: VideoUrlSigner }): Router {
  const router = express.Router();

  router.get(
    "/run/:id/video",
    operation("getRunVideo", async (req, res) => {
      const { id } = req.params;
      const verdict = deps.signer.verify(id, req.query.expires, req.query.signature);
      if (verdict === "invalid") throw new VideoLinkInvalid();
      if (verdict === "expired") throw new VideoLinkExpired();
      const file = await deps.videos.find(id);
      if (!file) throw new VideoNotFound();
      await sendVideo(res, file);
    }),
  );

  return router;
}

type SendError = Error & { status?: number; code?: string };

// Resolves once the file is sent (or the caller went away); rejects with the contract's error
// when `send` refused or failed before anything was sent.
function sendVideo(res: Response, file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    // A copy: Express writes its `etag` setting into the options it is given.
    res.sendFile(file, { ...SEND_OPTIONS }, (error?: SendError) => {
      if (!error) resolve();
      else if (res.headersSent || error.code === "ECONNABORTED") {
        abandon(res, error);
        resolve();
      } else reject(refusal(res, error));
    });
  });
}

// Too late for an error response: cut the transfer short so the player sees it fail.
function abandon(res: Response, error: SendError): void {
  if (error.code !== "ECONNABORTED") res.req.log.error({ err: error }, "video transfer failed");
  res.destroy();
}

/** The contract's error for a file `send` refused, without the file's headers. */
function refusal(res: Response, error: SendError): Error {
  for (const header of FILE_HEADERS) res.removeHeader(header);
  if (error.status === 416) return new RangeNotSatisfiable(); // keeps Content-Range: bytes */size
  res.removeHeader("Content-Range");
  if (error.status === 404) return new VideoNotFound(); // deleted since find()
  if (error.status === 412) return new PreconditionFailed();
  return error;
}
