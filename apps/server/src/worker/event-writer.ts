import type { Logger } from "pino";
import type { NewRunEvent } from "../db/repositories/run-events.js";
import type { Holder, RunExecutionRepository } from "../db/repositories/run-execution.js";

/**
 * Writes a run's events (and its data as it changes) in the order they happen, batching what
 * arrives while a write is under way into the next one, so a chatty step costs a few
 * transactions rather than one per event. A failed write is logged and the run goes on: the
 * step log is for people, and the run's ending is written separately. Once a write finds the run
 * no longer held by this worker, nothing more is written.
 */
export class EventWriter {
  private pending: NewRunEvent[] = [];
  private data: Record<string, unknown> | undefined;
  private writing = false;
  private scheduled = false;
  private idleWaiters: (() => void)[] = [];
  private lost = false;

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
    if (!this.scheduled) {
      this.scheduled = true;
      // Events a step emits synchronously go out in one write.
      queueMicrotask(() => {
        this.scheduled = false;
        this.write();
      });
    }
  }

  /** Resolves once everything pushed so far is written (or has failed to be). */
  flushed(): Promise<void> {
    if (!this.writing && !this.scheduled && this.pending.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private write(): void {
    if (this.writing) return;
    if (this.lost || (this.pending.length === 0 && this.data === undefined)) {
      this.pending = [];
      if (this.lost) this.data = undefined;
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
