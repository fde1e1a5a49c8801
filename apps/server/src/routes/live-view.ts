import express, { type Router } from "express";
import type { LiveViewRepository } from "../db/repositories/live-views.js";
import { isStorableText } from "../db/storable-text.js";
import type { Clock } from "../domain/clock.js";
import { LiveLinkExpired, LiveLinkInvalid, RunEnded, RunNotFound } from "../domain/errors.js";
import type { VideoUrlSigner } from "../files/signed-url.js";
import { ownerOf } from "../http/auth.js";
import type { LiveFeeds, LiveViewOptions } from "../http/live-feeds.js";
import { LIVE_BOUNDARY, multipartViewer } from "../http/multipart-viewer.js";
import { operation } from "../http/operation.js";
import type { Origin } from "../http/public-url.js";
import type { OwnerStreams } from "../http/stream-limits.js";

// The longest a timer may wait (setTimeout's limit): a stream's end at its link's expiry.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * `GET /run/{id}/live_url` signs a short-lived address of the run's live view for its owner;
 * `GET /run/{id}/live` streams it to whoever holds one (the spec's `security: []`) as JPEG parts
 * of a `multipart/x-mixed-replace` answer, which an `<img>` shows as it changes
 * (docs/decisions/0057-live-view-through-the-database.md).
 */
export function liveViewRouter(deps: {
  liveViews: LiveViewRepository;
  feeds: LiveFeeds;
  signer: VideoUrlSigner;
  clock: Clock;
  options: LiveViewOptions;
  /** Every live stream of an owner on this server, the step logs' included (OWNER_MAX_STREAMS). */
  streams: OwnerStreams;
  linkBase: (req: Origin) => string;
}): Router {
  const { liveViews, signer, options } = deps;
  const router = express.Router();

  router.get(
    "/run/:id/live_url",
    operation("getRunLiveUrl", async (req, res) => {
      const runId = req.params.id;
      if (!isStorableText(runId)) throw new RunNotFound();
      const run = await liveViews.runOf(runId);
      if (run === null || run.owner !== ownerOf(req)) throw new RunNotFound();
      if (run.ended) throw new RunEnded();
      res.json(signer.liveUrlFor(deps.linkBase(req), runId, options.urlTtlSeconds));
    }),
  );

  router.get(
    "/run/:id/live",
    operation("getRunLive", async (req, res) => {
      const runId = req.params.id;
      const { expires, signature } = req.query;
      const verdict = signer.verifyLive(runId, expires, signature);
      if (verdict === "invalid") throw new LiveLinkInvalid();
      if (verdict === "expired") throw new LiveLinkExpired();
      // Only an id this server signed gets here; one the database cannot hold was never signed.
      if (!isStorableText(runId)) throw new RunNotFound();
      const run = await liveViews.runOf(runId);
      if (run === null) throw new RunNotFound();
      if (run.ended) throw new RunEnded();
      const release = deps.streams.take(run.owner);
      res.writeHead(200, {
        "Content-Type": `multipart/x-mixed-replace; boundary=${LIVE_BOUNDARY}`,
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
        // Tells nginx and the like not to buffer the stream.
        "X-Accel-Buffering": "no",
      });
      res.flushHeaders();
      const viewer = multipartViewer(res, options.stallMs);
      const leave = deps.feeds.join(runId, viewer);
      const expiry = setTimeout(
        () => viewer.end(),
        Math.min(MAX_TIMER_MS, Math.max(0, expires * 1000 - deps.clock.now().getTime())),
      );
      // A server shutting down ends every stream through `feeds` (LiveFeeds.close).
      res.once("close", () => {
        clearTimeout(expiry);
        leave();
        release();
      });
    }),
  );

  return router;
}
