import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import {
  type ChromiumEnv,
  DEFAULT_ENGINE_LIMITS,
  type EngineLimits,
  type NetworkPolicy,
} from "@skillrun/engine";
import type { Logger } from "pino";
import type { LiveViewRepository } from "../db/repositories/live-views.js";
import type { ProfileRepository } from "../db/repositories/profiles.js";
import type { ClaimedRun, RunExecutionRepository } from "../db/repositories/run-execution.js";
import type { Clock } from "../domain/clock.js";
import type { FileStore } from "../files/file-store.js";
import type { Retention } from "../files/retention.js";
import type { Metrics } from "../metrics/metrics.js";
import type { RunSecrets } from "../secrets/run-secrets.js";
import type { Tracing } from "../tracing/tracing.js";
import type { BrowserSettings } from "./browser-settings.js";
import { DEFAULT_EVENT_LIMITS, type EventLimits } from "./event-limits.js";
import { executeRun, type WorkerFiles } from "./execute-run.js";
import { RunHosts } from "./run-hosts.js";
import { RunWatch } from "./run-pause.js";
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
  /** The memory each run's process may hold, in MB (heap and resident); a run past it ends in `reset`. */
  memoryMb: number;
  /** How long a run told to stop may take before its process is killed. */
  stopGraceMs: number;
  /** The largest checkpoint kept, as JSON (RUN_CHECKPOINT_MAX_BYTES). */
  checkpointMaxBytes: number;
  /** How long a run waits for an answer or a resume before it is parked (PARK_AFTER_SECONDS). */
  parkAfterMs: number;
  /** What a run may produce (data, response bodies). */
  limits: EngineLimits;
  /** How much of a run's step log is kept. */
  eventLimits: EventLimits;
  /** How often the worker sweeps old fileStore and files (also once at its start). */
  retentionIntervalMs: number;
}

export const DEFAULT_WORKER_OPTIONS: WorkerOptions = {
  concurrency: 4,
  leaseMs: 30_000,
  pollMs: 250,
  maxAttempts: 2,
  memoryMb: 256,
  stopGraceMs: 500,
  checkpointMaxBytes: 1024 * 1024,
  parkAfterMs: 10_000,
  limits: DEFAULT_ENGINE_LIMITS,
  eventLimits: DEFAULT_EVENT_LIMITS,
  retentionIntervalMs: 60 * 60 * 1000,
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
  /** Settles once the run has ended or been released; true when it went back to the queue. */
  done: Promise<boolean>;
  /** What the watch reads of the run, for its pauses. */
  watch: RunWatch;
}

/**
 * Claims queued runs and executes them, up to `concurrency` at a time. It renews the leases of
 * its runs, stops a run soon after it is cancelled, and recovers the runs of workers that died.
 * Database errors are logged and retried on the next tick; they never end the process.
 */
export class Worker {
  readonly id = `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
  private readonly active = new Map<string, ActiveRun>();
  /** What finds and takes runs (and sweeps old files): stopped first when the worker stops. */
  private readonly claimTimers: NodeJS.Timeout[] = [];
  /** What looks after the runs under way (cancels, leases): kept until the last has ended. */
  private readonly runTimers: NodeJS.Timeout[] = [];
  private readonly unsubscribe: (() => void)[] = [];
  private filling: Promise<void> | undefined;
  private fillAgain = false;
  private stopping = false;
  private stopped: Promise<void> | undefined;
  /** Told to stop at once while draining: the runs still under way are released now. */
  private hurried = false;
  private releaseNow: (() => void) | undefined;
  private watching = false;
  private sweeping: Promise<void> | undefined;
  private readonly hosts: RunHosts;

  constructor(
    private readonly deps: {
      execution: RunExecutionRepository;
      logger: Logger;
      /** Runs started, their wait in the queue, their endings and steps are counted into it. */
      metrics: Metrics;
      /** Each run's span and its steps', when tracing is on. */
      tracing?: Tracing;
      /** The time the runs' events and endings are stamped with. */
      clock: Clock;
      signals: RunSignals;
      /** Where browser runs' fileStore and screenshots go. */
      fileStore: FileStore;
      /** Where Chromium is looked for (see findChromium). */
      chromium: ChromiumEnv;
      /** As whom runs' browsers run, and how much memory each may use. */
      browser: BrowserSettings;
      /** Where runs may connect (their http steps and their browser), read at each claim. */
      network: () => NetworkPolicy;
      /** Opens each run's secret inputs and the secrets it reads. */
      secrets: RunSecrets;
      /** Opens each run's browser profile, and saves it at its end. */
      profiles: ProfileRepository;
      /** The index of runs' files, and the uploads their `file` inputs name. */
      files: WorkerFiles;
      /** Runs' live views: who watches, and the frames written for them. */
      liveViews: LiveViewRepository;
      /** Removes old fileStore and files (RETENTION_DAYS); none: everything is kept. */
      retention?: Retention;
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
        warmBrowsers: deps.browser.warm,
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
    this.every(this.claimTimers, pollMs, () => this.fill());
    this.every(this.claimTimers, leaseMs / 2, () => this.recover());
    this.every(this.claimTimers, this.options.retentionIntervalMs, () => this.sweep());
    this.every(this.runTimers, WATCH_MS, () => this.watch());
    this.every(this.runTimers, leaseMs / 3, () => this.renew());
    const { signals } = this.deps;
    this.unsubscribe.push(signals.onQueued(() => this.fill()));
    this.unsubscribe.push(
      signals.onCancelled((runId) => this.active.get(runId)?.control.abort(new RunStop("cancel"))),
    );
    this.recover();
    this.fill();
    this.sweep();
  }

  /**
   * Stops claiming at once, lets the runs under way go on for up to `graceMs` (their leases
   * renewed, a cancel still honoured), then aborts those left and waits until each has been put
   * back in the queue for another worker. Called again while stopping, it ends the wait: what is
   * left is released now.
   */
  stop(graceMs = 0): Promise<void> {
    if (this.stopped !== undefined) {
      if (graceMs === 0) {
        this.hurried = true;
        this.releaseNow?.();
      }
      return this.stopped;
    }
    this.stopping = true;
    this.stopped = this.drain(graceMs);
    return this.stopped;
  }

  private async drain(graceMs: number): Promise<void> {
    const { logger } = this.deps;
    for (const timer of this.claimTimers) clearInterval(timer);
    await this.filling;
    // Runs that wait (for an answer, a resume, the end of a wait) are parked at once rather than
    // waited for: any worker goes on with them later.
    await Promise.all([...this.active.values()].map((run) => run.watch.parkNow()));
    const under = [...this.active.values()];
    if (under.length > 0 && graceMs > 0 && !this.hurried) {
      logger.info(
        { worker: this.id, runs: under.length, graceMs },
        `draining ${runsCount(under.length)} for up to ${graceMs / 1000} s`,
      );
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(under.map((run) => run.done)),
        new Promise<void>((resolve) => {
          this.releaseNow = resolve;
          timer = setTimeout(resolve, graceMs);
        }),
      ]);
      clearTimeout(timer);
    }
    const left = [...this.active.values()];
    for (const run of left) run.control.abort(new RunStop("shutdown"));
    const released = (await Promise.all(left.map((run) => run.done))).filter(Boolean).length;
    if (left.length > 0) {
      logger.info({ worker: this.id, released }, `released ${runsCount(released)}`);
    }
    for (const timer of this.runTimers) clearInterval(timer);
    for (const off of this.unsubscribe) off();
    await this.sweeping;
    await this.hosts.close();
    logger.info({ worker: this.id }, "worker stopped");
  }

  private every(timers: NodeJS.Timeout[], ms: number, task: () => void): void {
    timers.push(setInterval(task, Math.max(1, Math.floor(ms))));
  }

  /** Puts a run this worker claimed but will not start back in the queue. */
  private async putBack(run: ClaimedRun): Promise<void> {
    const message =
      "the worker began to shut down as it claimed the run; the run was put back in the queue";
    const event = {
      runId: run.id,
      at: this.deps.clock.now(),
      type: "run_released",
      message,
    } as const;
    await this.deps.execution.release({ runId: run.id, workerId: this.id }, event);
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
      if (this.stopping) {
        // The claim was already under way when the worker began to stop, and took a run queued
        // meanwhile: it goes back unstarted, for the next worker.
        this.hosts.unreserve(host);
        await this.putBack(run);
        return;
      }
      this.counted(run);
      const control = new AbortController();
      const watch = new RunWatch();
      const { execution, logger, clock, fileStore, chromium, browser, network, secrets, metrics } =
        this.deps;
      const { files, profiles, liveViews } = this.deps;
      const { limits, eventLimits, memoryMb, checkpointMaxBytes, parkAfterMs } = this.options;
      const done = executeRun(
        {
          execution,
          logger,
          metrics,
          ...(this.deps.tracing && { tracing: this.deps.tracing }),
          clock,
          fileStore,
          chromium,
          browser,
          network: network(),
          secrets,
          profiles,
          files,
          liveViews,
          workerId: this.id,
          hosts: this.hosts,
          limits,
          eventLimits,
          memoryMb,
          checkpointMaxBytes,
          parkAfterMs,
        },
        run,
        host,
        control,
        watch,
      )
        .catch((error: unknown) => {
          this.deps.logger.error({ err: error, runId: run.id }, "could not end run");
          return false;
        })
        .finally(() => {
          this.active.delete(run.id);
          this.fill();
        });
      this.active.set(run.id, { control, done, watch });
    }
  }

  /**
   * A run claimed for its first execution is a run started, after its wait in the queue; one
   * taken again (released, recovered, woken from parking) was counted when it first started.
   */
  private counted(run: ClaimedRun): void {
    if (run.attempt !== 1 || run.woken) return;
    const { metrics, clock } = this.deps;
    metrics.runsStarted.inc();
    metrics.queueWait.observe(Math.max(0, clock.now().getTime() - run.createdAt.getTime()) / 1000);
  }

  /** Stops runs that were cancelled, or that are no longer this worker's. */
  private watch(): void {
    if (this.watching || this.active.size === 0) return;
    this.watching = true;
    const readAt = Date.now();
    this.deps.execution
      .statesOf([...this.active.keys()])
      .then((runs) => {
        for (const run of runs) {
          const held = run.workerId === this.id && (run.state === "play" || run.state === "pause");
          if (held) {
            this.active.get(run.id)?.watch.heard(run, readAt);
            continue;
          }
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

  /** One retention sweep, unless one is under way (a sweep of a large store may take a while). */
  private sweep(): void {
    const { retention, logger } = this.deps;
    if (retention === undefined || this.sweeping !== undefined) return;
    this.sweeping = retention
      .sweep()
      .then(() => undefined)
      .catch((error: unknown) => logger.error({ err: error }, "could not remove old files"))
      .finally(() => {
        this.sweeping = undefined;
      });
  }

  private recover(): void {
    // Parked pauses nobody resumed in time end as their worker would have ended them.
    this.deps.execution
      .expireParked()
      .then((count) => {
        if (count > 0) this.deps.logger.info({ count }, "parked runs timed out waiting");
      })
      .catch((error: unknown) =>
        this.deps.logger.error({ err: error }, "could not time out parked runs"),
      );
    // Client runs no agent took in time end as the agent would have ended them.
    this.deps.execution
      .expireWaitingClientRuns()
      .then((count) => {
        if (count > 0)
          this.deps.logger.info({ count }, "client runs timed out waiting for an agent");
      })
      .catch((error: unknown) =>
        this.deps.logger.error({ err: error }, "could not time out client runs"),
      );
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

function runsCount(count: number): string {
  return count === 1 ? "1 run" : `${count} runs`;
}
