import {
  Counter,
  collectDefaultMetrics,
  Gauge,
  Histogram,
  type LabelValues,
  Registry,
} from "prom-client";

/** How a run ended, as `skillrun_runs_ended_total` labels it: the run's terminal state. */
export type EndedState = "finish" | "reset" | "timeout" | "cancel";

/** How one webhook delivery attempt went. */
export type DeliveryResult = "delivered" | "failed" | "gave_up";

/**
 * Seconds buckets for runs and their wait in the queue: from a quick API call to an hour-long
 * browser session.
 */
const RUN_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];
/** Steps: from an instant `set` to a slow page. */
const STEP_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
/** Chromium starts in about a second on an idle machine. */
const LAUNCH_BUCKETS = [0.25, 0.5, 1, 2, 3, 5, 10, 30];

/**
 * What this process reports at `GET /metrics`: one registry per runtime (tests run several in one
 * process), counters moved where the work happens, gauges read when scraped. Every label has a
 * bounded set of values: no run, skill or owner ids, no raw paths
 * (docs/decisions/0062-metrics-per-process.md).
 */
export class Metrics {
  readonly registry = new Registry();
  readonly runsStarted: Counter;
  readonly runsEnded: Counter<"state">;
  readonly runDuration: Histogram;
  readonly queueWait: Histogram;
  readonly stepDuration: Histogram<"kind">;
  readonly browserLaunch: Histogram;
  readonly webhookDeliveries: Counter<"result">;
  readonly httpRequests: Counter<"operation" | "status">;

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.runsStarted = new Counter({
      name: "skillrun_runs_started_total",
      help: "Runs a worker of this process began executing for the first time.",
      registers,
    });
    this.runsEnded = new Counter({
      name: "skillrun_runs_ended_total",
      help: "Runs this process ended, by final state.",
      labelNames: ["state"],
      registers,
    });
    this.runDuration = new Histogram({
      name: "skillrun_run_duration_seconds",
      help: "How long runs ended by this process's worker ran, from the claim that ended them.",
      buckets: RUN_BUCKETS,
      registers,
    });
    this.queueWait = new Histogram({
      name: "skillrun_run_queue_wait_seconds",
      help: "How long runs waited in the queue before this process's worker first claimed them.",
      buckets: RUN_BUCKETS,
      registers,
    });
    this.stepDuration = new Histogram({
      name: "skillrun_step_duration_seconds",
      help: "How long step attempts took, by step kind.",
      labelNames: ["kind"],
      buckets: STEP_BUCKETS,
      registers,
    });
    this.browserLaunch = new Histogram({
      name: "skillrun_browser_launch_seconds",
      help: "How long runs' Chromium took to start, recording included.",
      buckets: LAUNCH_BUCKETS,
      registers,
    });
    this.webhookDeliveries = new Counter({
      name: "skillrun_webhook_deliveries_total",
      help: "Webhook delivery attempts this process made, by result.",
      labelNames: ["result"],
      registers,
    });
    this.httpRequests = new Counter({
      name: "skillrun_http_requests_total",
      help: "HTTP requests answered, by OpenAPI operation (or a fixed name) and status.",
      labelNames: ["operation", "status"],
      registers,
    });
  }

  /** A run ended by this process, `durationMs` its execution time when known. */
  runEnded(state: EndedState, durationMs?: number): void {
    this.runsEnded.inc({ state });
    if (durationMs !== undefined) this.runDuration.observe(durationMs / 1000);
  }

  /**
   * Reads the run queue's depth when scraped: `count` gives the number of queued runs (from the
   * database, shared by every process).
   */
  queuedRuns(count: () => Promise<number>): void {
    new Gauge({
      name: "skillrun_queued_runs",
      help: "Runs waiting in the queue (every owner, every process's).",
      registers: [this.registry],
      async collect() {
        this.set(await count());
      },
    });
  }

  /** Reads this process's worker slots when scraped: busy (a run holds it) and idle. */
  workerSlots(slots: () => { busy: number; total: number }): void {
    new Gauge({
      name: "skillrun_worker_slots",
      help: "This process's run slots, by state (busy, idle).",
      labelNames: ["state"],
      registers: [this.registry],
      collect() {
        const { busy, total } = slots();
        this.set({ state: "busy" } satisfies LabelValues<"state">, busy);
        this.set({ state: "idle" }, Math.max(0, total - busy));
      },
    });
  }

  /** The Prometheus text exposition of every metric. */
  text(): Promise<string> {
    return this.registry.metrics();
  }
}
