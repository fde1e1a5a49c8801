import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { ChromiumEnv, NetworkPolicy } from "@skillrun/engine";
import type { Logger } from "pino";
import type { RunExecutionRepository } from "../db/repositories/run-execution.js";
import type { Clock } from "../domain/clock.js";
import type { VideoStore } from "../videos/video-store.js";
import { executeRun } from "./execute-run.js";
import type { RunSignals } from "./run-signals.js";
import { RunStop } from "./run-stop.js";

export interface WorkerOptions {
  /** How many runs execute at once. */
  concurrency: number;
  /** How long a claim holds without renewal; renewed every third of it. */
  leaseMs: number;
  /** How often an idle worker looks for queued runs it was not told about. */
  pollMs: number;
  /** Claims a run may have: a run whose worker is lost this many times ends in `reset`. */
  maxAttempts: number;
}

export const DEFAULT_WORKER_OPTIONS: WorkerOptions = {
  concurrency: 4,
  leaseMs: 30_000,
  pollMs: 250,
  maxAttempts: 2,
};

// How often a worker checks whether its runs were cancelled elsewhere: well within the one
// second a cancel may take to stop a running run.
const WATCH_MS = 200;

interface ActiveRun {
  control: AbortController;
  done: Promise<void>;
}

/**
 * Claims queued runs and executes them, up to `concurrency` at a time. It renews the leases of
 * its runs, stops a run soon after it is cancelled, and recovers the runs of workers that died.
 * Database errors are logged and retried on the next tick; they never end the process.
 */
export class Worker {
  readonly id = `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
  private readonly active = new Map<string, ActiveRun>();
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly unsubscribe: (() => void)[] = [];
  private filling: Promise<void> | undefined;
  private fillAgain = false;
  private stopping = false;
  private watching = false;

  constructor(
    private readonly deps: {
      execution: RunExecutionRepository;
      logger: Logger;
      /** The time the runs' events and endings are stamped with. */
      clock: Clock;
      signals: RunSignals;
      /** Where browser runs' videos and screenshots go. */
      videos: VideoStore;
      /** Where Chromium is looked for (see findChromium). */
      chromium: ChromiumEnv;
      /** Where runs may connect: their http steps and their browser. */
      network: NetworkPolicy;
    },
    private readonly options: WorkerOptions = DEFAULT_WORKER_OPTIONS,
  ) {}

  /** How many runs this worker is executing now. */
  get busy(): number {
    return this.active.size;
  }

  start(): void {
    const { pollMs, leaseMs } = this.options;
    this.deps.logger.info({ worker: this.id, ...this.options }, "worker started");
    this.every(pollMs, () => this.fill());
    this.every(WATCH_MS, () => this.watch());
    this.every(leaseMs / 3, () => this.renew());
    this.every(leaseMs / 2, () => this.recover());
    const { signals } = this.deps;
    this.unsubscribe.push(signals.onQueued(() => this.fill()));
    this.unsubscribe.push(
      signals.onCancelled((runId) => this.active.get(runId)?.control.abort(new RunStop("cancel"))),
    );
    this.recover();
    this.fill();
  }

  /**
   * Stops claiming, aborts the runs under way and waits until each has been put back in the
   * queue for another worker.
   */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    for (const timer of this.timers) clearInterval(timer);
    for (const off of this.unsubscribe) off();
    await this.filling;
    for (const run of this.active.values()) run.control.abort(new RunStop("shutdown"));
    await Promise.all([...this.active.values()].map((run) => run.done));
    this.deps.logger.info({ worker: this.id }, "worker stopped");
  }

  private every(ms: number, task: () => void): void {
    this.timers.push(setInterval(task, Math.max(1, Math.floor(ms))));
  }

  /** Claims runs until the worker is full or the queue is empty. */
  private fill(): void {
    if (this.stopping) return;
    if (this.filling) {
      this.fillAgain = true;
      return;
    }
    this.filling = this.claimWhileRoom()
      .catch((error: unknown) => this.deps.logger.error({ err: error }, "could not claim runs"))
      .finally(() => {
        this.filling = undefined;
        if (this.fillAgain) {
          this.fillAgain = false;
          this.fill();
        }
      });
  }

  private async claimWhileRoom(): Promise<void> {
    const { concurrency, leaseMs } = this.options;
    while (!this.stopping && this.active.size < concurrency) {
      const run = await this.deps.execution.claim(this.id, leaseMs);
      if (run === null) return;
      const control = new AbortController();
      const { execution, logger, clock, videos, chromium, network } = this.deps;
      const done = executeRun(
        { execution, logger, clock, videos, chromium, network, workerId: this.id },
        run,
        control,
      )
        .catch((error: unknown) =>
          this.deps.logger.error({ err: error, runId: run.id }, "could not end run"),
        )
        .finally(() => {
          this.active.delete(run.id);
          this.fill();
        });
      this.active.set(run.id, { control, done });
    }
  }

  /** Stops runs that were cancelled, or that are no longer this worker's. */
  private watch(): void {
    if (this.watching || this.active.size === 0) return;
    this.watching = true;
    this.deps.execution
      .statesOf([...this.active.keys()])
      .then((runs) => {
        for (const run of runs) {
          const held = run.workerId === this.id && (run.state === "play" || run.state === "pause");
          if (held) continue;
          const reason = new RunStop(run.state === "cancel" ? "cancel" : "lost");
          this.active.get(run.id)?.control.abort(reason);
        }
      })
      .catch((error: unknown) => this.deps.logger.error({ err: error }, "could not watch runs"))
      .finally(() => {
        this.watching = false;
      });
  }

  private renew(): void {
    this.deps.execution
      .renewLeases(this.id, [...this.active.keys()], this.options.leaseMs)
      .catch((error: unknown) => this.deps.logger.error({ err: error }, "could not renew leases"));
  }

  private recover(): void {
    this.deps.execution
      .recoverLost(this.options.maxAttempts)
      .then((count) => {
        if (count > 0) this.deps.logger.warn({ count }, "recovered runs of lost workers");
        // Re-queued runs are there for the taking.
        if (count > 0) this.fill();
      })
      .catch((error: unknown) => this.deps.logger.error({ err: error }, "could not recover runs"));
  }
}
