import type { Logger } from "pino";
import type { LiveViewRepository } from "../db/repositories/live-views.js";
import type { Clock } from "../domain/clock.js";

/**
 * The largest frame kept for a live view: a 1280×720 screencast JPEG is a few hundred KB at
 * most; a larger one is dropped rather than written (bounds what a stream holds per run).
 */
export const LIVE_FRAME_MAX_BYTES = 2 * 1024 * 1024;

/**
 * A run's live view on its worker (docs/decisions/0057-live-view-through-the-database.md): tells
 * the run's process whether somebody watches (from what the worker's watch reads every 200 ms),
 * and writes the frames it then sends to the database, one write at a time, the latest frame
 * replacing one still waiting: a slow database drops frames, it never queues them.
 */
export class LiveRelay {
  private watched = false;
  private tell: ((watched: boolean) => void) | undefined;
  private waiting: Buffer | undefined;
  private writing: Promise<void> | undefined;
  /** The run has a row of its live view to remove at its end (watched, or parked before). */
  private touched: boolean;

  constructor(
    private readonly deps: {
      liveViews: LiveViewRepository;
      runId: string;
      clock: Clock;
      logger: Logger;
    },
    /** The run goes on from where it was parked (its last frame may be kept). */
    woken: boolean,
  ) {
    this.touched = woken;
  }

  /** How the run's process is told; told at once when somebody watches already. */
  attach(tell: (watched: boolean) => void): void {
    this.tell = tell;
    if (this.watched) tell(true);
  }

  /** What the worker's watch read: until when somebody watches (null: nobody ever did). */
  heard(watchEndsAt: Date | null): void {
    if (watchEndsAt !== null) this.touched = true;
    const watched = watchEndsAt !== null && watchEndsAt > this.deps.clock.now();
    if (watched === this.watched) return;
    this.watched = watched;
    this.tell?.(watched);
  }

  /** A frame from the run's process. */
  frame(jpeg: Uint8Array): void {
    if (jpeg.byteLength > LIVE_FRAME_MAX_BYTES) return;
    this.waiting = Buffer.from(jpeg.buffer, jpeg.byteOffset, jpeg.byteLength);
    this.touched = true;
    this.writing ??= this.write().finally(() => {
      this.writing = undefined;
    });
  }

  /**
   * The run's process is done: nothing more is told or written. Once the run has ended, its
   * live view is removed (a parked run's stays: it shows its last frame).
   */
  async close(): Promise<void> {
    this.tell = undefined;
    await this.writing;
    if (!this.touched) return;
    await this.deps.liveViews.forgetEnded(this.deps.runId).catch((error: unknown) => {
      this.deps.logger.warn({ err: error }, "could not remove the run's live view");
    });
  }

  private async write(): Promise<void> {
    const { liveViews, runId, clock, logger } = this.deps;
    for (let jpeg = this.waiting; jpeg !== undefined; jpeg = this.waiting) {
      this.waiting = undefined;
      try {
        await liveViews.writeFrame(runId, jpeg, clock.now());
      } catch (error) {
        // The live view misses a frame; the run goes on.
        logger.warn({ err: error }, "could not write a live view frame");
      }
    }
  }
}
