import express, { type Router } from "express";
import { VideoLinkExpired, VideoLinkInvalid, VideoNotFound } from "../domain/errors.js";
import type { FileStore } from "../files/file-store.js";
import type { VideoUrlSigner } from "../files/signed-url.js";
import { operation } from "../http/operation.js";
import { sendStoredFile } from "../http/send-stored-file.js";

/**
 * `GET /run/{id}/video`: the run's video for whoever holds a signed address from `video_url`.
 * No API key (the spec's `security: []`): the signature is the authorisation.
 */
export function videosRouter(deps: { fileStore: FileStore; signer: VideoUrlSigner }): Router {
  const router = express.Router();

  router.get(
    "/run/:id/video",
    operation("getRunVideo", async (req, res) => {
      const { id } = req.params;
      const verdict = deps.signer.verify(id, req.query.expires, req.query.signature);
      if (verdict === "invalid") throw new VideoLinkInvalid();
      if (verdict === "expired") throw new VideoLinkExpired();
      const file = deps.fileStore.find(id);
      if (!file) throw new VideoNotFound();
      // As a run file's: browsers neither sniff it into something else nor run it as this site.
      const headers = {
        "Content-Type": "video/webm",
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "default-src 'none'; sandbox",
      };
      await sendStoredFile(res, file, headers, () => new VideoNotFound());
    }),
  );

  return router;
}
