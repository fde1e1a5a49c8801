import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import {
  type ChromiumEnv,
  DEFAULT_ENGINE_LIMITS,
  type EngineLimits,
  type NetworkPolicy,
} from "@skillrun/engine";
import type { Logger } from "pino";
import type { RunExecutionRepository } from "../db/repositories/run-execution.js";
import type { Clock } from "../domain/clock.js";
import type { VideoStore } from "../videos/video-store.js";
import type { BrowserSettings } from "./browser-settings.js";
import { DEFAULT_EVENT_LIMITS, type EventLimits } from "./event-limits.js";
import { executeRun } from "./execute-run.js";
import { RunHosts } from "./run-hosts.js";
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
  /** The heap each run's process may use, in MB; a run past it ends in `reset`. */
  memoryMb: number;
  /** How long a run told to stop may take before its process is killed. */
  stopGraceMs: number;
  /** What a run may produce (data, response bodies). */
  limits: EngineLimits;
  /** How much of a run's step log is kept. */
  eventLimits: EventLimits;
}

export const DEFAULT_WORKER_OPTIONS: WorkerOptions = {
  concurrency: 4,
  leaseMs: 30_000,
  pollMs: 250,
  maxAttempts: 2,
  memoryMb: 256,
  stopGraceMs: 500,
  limits: DEFAULT_ENGINE_LIMITS,
  eventLimits: DEFAULT_EVENT_LIMITS,
};

// How long closing a run's browser may take (the video is finished meanwhile) before its
// processes are killed.
const BROWSER_CLOSE_MS = 30_000;

// How long `ready` waits for run processes that are slow to load (a machine under load).
const READY_WITHIN_MS = 60_000;

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
  private readonly hosts: RunHosts;

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
      /** As whom runs' browsers run, and how much memory each may use. */
      browser: BrowserSettings;
      /** Where runs may connect (their http steps and their browser), read at each claim. */
      network: () => NetworkPolicy;
    },
    private readonly options: WorkerOptions = DEFAULT_WORKER_OPTIONS,
  ) {
    const { memoryMb, stopGraceMs } = options;
    // Run processes get PATH (to find ffmpeg and Chromium) and nothing else of the server's
    // environment: no database address, no secrets.
    const env: Record<string, string> =
      deps.chromium.PATH === undefined ? {} : { PATH: deps.chromium.PATH };
    this.hosts = new RunHosts(
      {
        size: options.concurrency,
        memoryMb,
        stopGraceMs,
        closeMs: BROWSER_CLOSE_MS,
        env,
        // A process loaded or freed is room for another run.
        onAvailable: () => this.fill(),
      },
      deps.logger,
    );
  }

  /** How many runs this worker is executing now. */
  get busy(): number {
    return this.active.size;
  }

  /**
   * Resolves once the worker's run processes have loaded (at most a minute later): from then on
   * a run it claims starts at once.
   */
  ready(): Promise<void> {
    return this.hosts.ready(READY_WITHIN_MS);
  }

  start(): void {
    const { pollMs, leaseMs } = this.options;
    this.deps.logger.info({ worker: this.id, ...this.options }, "worker started");
    this.hosts.start();
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
    await this.hosts.close();
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
      // Only with a run process loaded and free: the run's time limit starts at its claim.
      const host = this.hosts.reserve();
      if (host === undefined) return;
      const run = await this.deps.execution.claim(this.id, leaseMs).catch((error: unknown) => {
        this.hosts.unreserve(host);
        throw error;
      });
      if (run === null) {
        this.hosts.unreserve(host);
        return;
      }
      const control = new AbortController();
      const { execution, logger, clock, videos, chromium, browser, network } = this.deps;
      const { limits, eventLimits, memoryMb } = this.options;
      const done = executeRun(
        {
          execution,
          logger,
          clock,
          videos,
          chromium,
          browser,
          network: network(),
          workerId: this.id,
          hosts: this.hosts,
          limits,
          eventLimits,
          memoryMb,
        },
        run,
        host,
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
