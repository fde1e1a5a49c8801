import type { Logger } from "pino";
import type { LiveViewRepository } from "../db/repositories/live-views.js";
import type { Clock } from "../domain/clock.js";

/** How the live views of this server read and watch (docs/decisions/0057-live-view-through-the-database.md). */
export interface LiveViewOptions {
  /** How long a live view address works; a stream opened with it ends then too. */
  urlTtlSeconds: number;
  /** How often a watched run's latest frame is read, once for all its streams here. */
  pollMs: number;
  /**
   * How far ahead a watch reaches: the run's worker sends frames until then, so a server that
   * died stops them this soon after.
   */
  watchForMs: number;
  /** How often open streams push the watch forward. */
  renewEveryMs: number;
  /** How long a client may leave a frame unread before it is let go. */
  stallMs: number;
}

export const DEFAULT_LIVE_VIEW_OPTIONS: LiveViewOptions = {
  urlTtlSeconds: 60,
  pollMs: 250,
  watchForMs: 6_000,
  renewEveryMs: 2_000,
  stallMs: 10_000,
};

/** One client of a run's live view. */
export interface LiveViewer {
  /** A new frame: sent, or dropped when the client has not taken the one before. */
  offer(frame: Buffer): void;
  /** Checked at each read: lets go of a client that has left a frame unread too long. */
  check(now: number): void;
  /** The run has ended, or the server shuts down: the stream ends. */
  end(): void;
}

/** The live view of one run on this server: one read and one watch for all its viewers. */
class Feed {
  readonly viewers = new Set<LiveViewer>();
  private seq = 0;
  private latest: Buffer | undefined;
  private renewedAt = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly runId: string,
    private readonly deps: LiveFeedsDeps,
    private readonly onStop: () => void,
  ) {}

  join(viewer: LiveViewer): void {
    this.viewers.add(viewer);
    if (this.latest !== undefined) viewer.offer(this.latest);
    if (this.viewers.size === 1 && this.timer === undefined) void this.tick();
  }

  leave(viewer: LiveViewer): void {
    this.viewers.delete(viewer);
    if (this.viewers.size === 0) this.stop();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.onStop();
  }

  /** Renews the watch when due, reads the run's frame, hands it to every viewer; then again. */
  private async tick(): Promise<void> {
    const { liveViews, clock, options, logger } = this.deps;
    try {
      const now = clock.now().getTime();
      if (now - this.renewedAt >= options.renewEveryMs) {
        this.renewedAt = now;
        await liveViews.watch(this.runId, new Date(now + options.watchForMs));
      }
      const read = await liveViews.read(this.runId, this.seq);
      if (this.stopped) return;
      if (read === null || read.ended) {
        for (const viewer of [...this.viewers]) viewer.end();
        this.stop();
        // Its last frame serves nobody any more (its worker removes it too, when it held it).
        if (read?.ended) await liveViews.forgetEnded(this.runId);
        return;
      }
      if (read.frame !== null) {
        this.seq = read.seq;
        this.latest = read.frame;
        for (const viewer of this.viewers) viewer.offer(read.frame);
      }
      const checkedAt = Date.now();
      for (const viewer of [...this.viewers]) viewer.check(checkedAt);
    } catch (error) {
      // The next read tries again; the streams stay open meanwhile.
      logger.warn({ err: error, runId: this.runId }, "could not read a run's live view");
    }
    if (!this.stopped) this.timer = setTimeout(() => void this.tick(), options.pollMs);
  }
}

interface LiveFeedsDeps {
  liveViews: LiveViewRepository;
  clock: Clock;
  options: LiveViewOptions;
  logger: Logger;
}

/**
 * The live views streamed by this server: per run one feed, which reads the run's latest frame
 * every `pollMs` and keeps its watch renewed only while it has a viewer. Nobody watching, nothing
 * is read or written.
 */
export class LiveFeeds {
  private readonly feeds = new Map<string, Feed>();

  constructor(private readonly deps: LiveFeedsDeps) {}

  /** Adds a viewer of the run (it gets the latest frame at once); returns its removal. */
  join(runId: string, viewer: LiveViewer): () => void {
    let feed = this.feeds.get(runId);
    if (feed === undefined) {
      const created: Feed = new Feed(runId, this.deps, () => {
        if (this.feeds.get(runId) === created) this.feeds.delete(runId);
      });
      feed = created;
      this.feeds.set(runId, feed);
    }
    const joined = feed;
    joined.join(viewer);
    return () => joined.leave(viewer);
  }

  /** Ends every stream (the server shuts down). */
  close(): void {
    for (const feed of [...this.feeds.values()]) {
      for (const viewer of [...feed.viewers]) viewer.end();
      feed.stop();
    }
  }
}
