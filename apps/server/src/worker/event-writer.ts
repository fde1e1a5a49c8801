import type { Logger } from "pino";
import type { NewRunEvent } from "../db/repositories/run-events.js";
import type { Holder, RunExecutionRepository } from "../db/repositories/run-execution.js";
import type { StoredCheckpoint } from "../db/runs/checkpoints.js";

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
 * the run no longer held by this worker, nothing more is written by it: what it could not write,
 * and what comes after, waits for the ending (handOver), whose own write is fenced too. A run
 * cancelled while it worked is not held, yet its worker records where it stopped
 * (recordCancelled): its last steps and its video are in what waited.
 */
export class EventWriter {
  private pending: NewRunEvent[] = [];
  private checkpoints: StoredCheckpoint[] = [];
  /** The step with effects about to begin, to write before it does (see markEffects). */
  private effects: string | undefined;
  /** Waiting for the write that records `effects`: told whether the run was still held. */
  private effectsWaiters: ((held: boolean) => void)[] = [];
  private data: Record<string, unknown> | undefined;
  private writing = false;
  private timer: NodeJS.Timeout | undefined;
  private idleWaiters: (() => void)[] = [];
  private lost = false;
  /** The run is ending: what is still queued goes with its ending (see handOver). */
  private handingOver = false;

  constructor(
    /** Where the step log goes: the repository on a worker, over HTTP on an agent. */
    private readonly execution: Pick<RunExecutionRepository, "record">,
    private readonly holder: Holder,
    private readonly logger: Logger,
    /**
     * Whether a checkpoint clears the step with effects (`on_worker_loss: resume`): past a step
     * boundary, the run may go on from there. Otherwise the mark stays for the whole attempt.
     */
    private readonly checkpointsClearEffects = false,
  ) {}

  /**
   * Queues a checkpoint, written after the events pushed before it. One inside a block is kept
   * only while it is the latest (see insertCheckpoints): a queued one it supersedes, or one with
   * its label (a retried block's), is not written at all.
   */
  pushCheckpoint(checkpoint: StoredCheckpoint): void {
    if (this.lost) return;
    this.checkpoints = this.checkpoints.filter(
      (queued) => queued.topLevel && queued.label !== checkpoint.label,
    );
    this.checkpoints.push(checkpoint);
    this.schedule();
  }

  /**
   * Writes at once what is queued with the mark of the step with effects about to begin; true
   * once written, false when the run is no longer held (or the write failed): then the step
   * must not begin.
   */
  markEffects(label: string): Promise<boolean> {
    if (this.lost) return Promise.resolve(false);
    this.effects = label;
    const written = new Promise<boolean>((resolve) => this.effectsWaiters.push(resolve));
    this.schedule();
    this.writeNow();
    return written;
  }

  /**
   * Queues events, and the run's whole data when they changed it. Once the run is found no
   * longer held, events are still queued for handOver (the run's event budget bounds them).
   */
  push(events: NewRunEvent[], data?: Record<string, unknown>): void {
    this.pending.push(...events);
    if (this.lost) return;
    if (data !== undefined) this.data = data;
    this.schedule();
  }

  private schedule(): void {
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
    // Once the run is ending, what is queued goes with the ending (handOver), not before; once
    // it is not held, nothing more is written before the ending.
    if (this.handingOver || this.lost) return Promise.resolve();
    this.writeNow();
    if (!this.writing && this.nothingQueued()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private nothingQueued(): boolean {
    return (
      this.pending.length === 0 &&
      this.checkpoints.length === 0 &&
      this.data === undefined &&
      this.effects === undefined
    );
  }

  /**
   * Waits for the write under way, then writes nothing more and returns the events still queued,
   * for the run's ending to write in its own transaction: a short run's step log costs no
   * transaction of its own. The queued data is dropped: the ending writes the final data.
   * The checkpoints still queued go with it too, unless the run is no longer held: a run that
   * is not held goes on from no checkpoint of this worker's. Its events are handed over all the
   * same, those a write found it not held with first: whatever the ending writes is fenced.
   */
  async handOver(): Promise<{ events: NewRunEvent[]; checkpoints: StoredCheckpoint[] }> {
    this.handingOver = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.writing) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    const events = this.pending.splice(0);
    const checkpoints = this.checkpoints.splice(0);
    this.data = undefined;
    return { events, checkpoints: this.lost ? [] : checkpoints };
  }

  private writeNow(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.write();
  }

  private write(): void {
    if (this.writing) return;
    if (this.lost || this.handingOver || this.nothingQueued()) {
      if (this.lost) {
        this.checkpoints = [];
        this.data = undefined;
      }
      for (const resolve of this.effectsWaiters.splice(0)) resolve(false);
      for (const resolve of this.idleWaiters.splice(0)) resolve();
      return;
    }
    const events = this.pending.splice(0);
    const checkpoints = this.checkpoints.splice(0);
    const data = this.data;
    this.data = undefined;
    // The mark of a step with effects, or its end: the batch passed a step boundary after it.
    const effects =
      this.effects ?? (checkpoints.length > 0 && this.checkpointsClearEffects ? null : undefined);
    this.effects = undefined;
    const effectsWaiters = this.effectsWaiters.splice(0);
    this.writing = true;
    this.execution
      .record(this.holder, {
        events,
        checkpoints,
        ...(data !== undefined && { data }),
        ...(effects !== undefined && { effects }),
      })
      .then((held) => {
        for (const resolve of effectsWaiters) resolve(held);
        if (held) return;
        this.lost = true;
        // Kept, ahead of what came since, for the ending (handOver).
        this.pending.unshift(...events);
        this.logger.warn(
          { runId: this.holder.runId },
          "run no longer held; its events wait for its ending",
        );
      })
      .catch((error: unknown) => {
        for (const resolve of effectsWaiters) resolve(false);
        this.logger.error({ err: error, runId: this.holder.runId }, "could not write run events");
      })
      .finally(() => {
        this.writing = false;
        this.write();
      });
  }
}
