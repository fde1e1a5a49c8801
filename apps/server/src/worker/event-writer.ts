import type { Logger } from "pino";
import type { NewRunEvent } from "../db/repositories/run-events.js";
import type { Holder, RunExecutionRepository } from "../db/repositories/run-execution.js";

/**
 * How long an event waits for those that follow it before they are written together, so that
 * a run that ends sooner writes its whole step log with its ending, in one transaction
 * (docs/decisions/0012-step-log-batched.md); someone watching a run sees its events this much
 * later at most.
 */
export const EVENT_BATCH_MS = 50;

/**
 * Writes a run's events (and its data as it changes) in the order they happen: what arrives
 * within EVENT_BATCH_MS, or while a write is under way, goes in one write, so a chatty step
 * costs a few transactions rather than one per event. A failed write is logged and the run goes
 * on: the step log is for people, and the run's ending is written separately. Once a write finds
 * the run no longer held by this worker, nothing more is written.
 */
export class EventWriter {
  private pending: NewRunEvent[] = [];
  private data: Record<string, unknown> | undefined;
  private writing = false;
  private timer: NodeJS.Timeout | undefined;
  private idleWaiters: (() => void)[] = [];
  private lost = false;
  /** The run is ending: what is still queued goes with its ending (see handOver). */
  private handingOver = false;

  constructor(
    private readonly execution: RunExecutionRepository,
    private readonly holder: Holder,
    private readonly logger: Logger,
  ) {}

  /** Queues events, and the run's whole data when they changed it. */
  push(events: NewRunEvent[], data?: Record<string, unknown>): void {
    if (this.lost) return;
    this.pending.push(...events);
    if (data !== undefined) this.data = data;
    // While a write is under way, its end writes what was queued meanwhile.
    if (this.timer === undefined && !this.writing && !this.handingOver) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.write();
      }, EVENT_BATCH_MS);
    }
  }

  /** Writes what is queued now; resolves once everything pushed so far is written (or failed). */
  flushed(): Promise<void> {
    // Once the run is ending, what is queued goes with the ending (handOver), not before.
    if (this.handingOver) return Promise.resolve();
    this.writeNow();
    if (!this.writing && this.pending.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Waits for the write under way, then writes nothing more and returns the events still queued,
   * for the run's ending to write in its own transaction: a short run's step log costs no
   * transaction of its own. The queued data is dropped: the ending writes the final data.
   * Nothing when the run is no longer held.
   */
  async handOver(): Promise<NewRunEvent[]> {
    this.handingOver = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.writing) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    const rest = this.pending.splice(0);
    this.data = undefined;
    return this.lost ? [] : rest;
  }

  private writeNow(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.write();
  }

  private write(): void {
    if (this.writing) return;
    const nothing = this.pending.length === 0 && this.data === undefined;
    if (this.lost || this.handingOver || nothing) {
      if (this.lost) {
        this.pending = [];
        this.data = undefined;
      }
      for (const resolve of this.idleWaiters.splice(0)) resolve();
      return;
    }
    const events = this.pending.splice(0);
    const data = this.data;
    this.data = undefined;
    this.writing = true;
    this.execution
      .record(this.holder, events, data)
      .then((held) => {
        if (held) return;
        this.lost = true;
        this.logger.warn(
          { runId: this.holder.runId },
          "run no longer held; its events are dropped",
        );
      })
      .catch((error: unknown) => {
        this.logger.error({ err: error, runId: this.holder.runId }, "could not write run events");
      })
      .finally(() => {
        this.writing = false;
        this.write();
      });
  }
}
