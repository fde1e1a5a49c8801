import type { ChromiumEnv, EngineLimits, NetworkPolicy } from "@skillrun/engine";
import type { Logger } from "pino";
import type { LiveViewRepository } from "../db/repositories/live-views.js";
import type { ProfileRepository } from "../db/repositories/profiles.js";
import type {
  ClaimedRun,
  Holder,
  RunExecutionRepository,
} from "../db/repositories/run-execution.js";
import type { RunFileRepository } from "../db/repositories/run-files.js";
import type { UploadedFileRepository } from "../db/repositories/uploaded-files.js";
import type { Clock } from "../domain/clock.js";
import type { FileStore } from "../files/file-store.js";
import type { Metrics } from "../metrics/metrics.js";
import type { RunSecrets } from "../secrets/run-secrets.js";
import type { Tracing } from "../tracing/tracing.js";
import type { BrowserSettings } from "./browser-settings.js";
import type { EventLimits } from "./event-limits.js";
import { endUnstarted, finishRun } from "./execute-run/finish.js";
import { hostRun } from "./execute-run/host.js";
import { type PreparedRun, prepareRun, type UnstartedRun } from "./execute-run/prepare.js";
import { LiveRelay } from "./live-relay.js";
import type { ReservedHost, RunHosts } from "./run-hosts.js";
import type { RunWatch } from "./run-pause.js";

export interface ExecuteRunDeps {
  execution: RunExecutionRepository;
  logger: Logger;
  /** Where the run's ending and its steps' durations are counted. */
  metrics: Metrics;
  /** The run's span and its steps', when tracing is on. */
  tracing?: Tracing;
  /** The time every event and ending is stamped with. */
  clock: Clock;
  workerId: string;
  /** Where browser runs' fileStore and screenshots are kept. */
  fileStore: FileStore;
  /** Where Chromium is looked for (see findChromium). */
  chromium: ChromiumEnv;
  /** The processes the engine's work runs in. */
  hosts: RunHosts;
  /** What a run may produce (data, response bodies), enforced by the engine. */
  limits: EngineLimits;
  /** How much of a run's step log is kept. */
  eventLimits: EventLimits;
  /** The heap a run's process may use, in MB: named in the error of a run that outgrew it. */
  memoryMb: number;
  /** The largest checkpoint kept, as JSON (RUN_CHECKPOINT_MAX_BYTES). */
  checkpointMaxBytes: number;
  /** How long a run waits for an answer or a resume before it is parked (PARK_AFTER_SECONDS). */
  parkAfterMs: number;
  /** As whom the run's browser runs, and how much memory it may use. */
  browser: BrowserSettings;
  /** Where the run may connect: its http steps and every request of its browser. */
  network: NetworkPolicy;
  /** Opens the run's secret inputs and the secrets it reads. */
  secrets: RunSecrets;
  /** Opens the run's browser profile, and saves it at its end. */
  profiles: ProfileRepository;
  /** The index of runs' files, and the uploads their `file` inputs name. */
  files: WorkerFiles;
  /** Runs' live views: who watches, and the frames written for them. */
  liveViews: LiveViewRepository;
}

/** What a worker needs for runs' files. */
export interface WorkerFiles {
  runFiles: RunFileRepository;
  uploads: UploadedFileRepository;
  /** Largest file a URL given for a `file` input may give (FILE_MAX_BYTES). */
  maxBytes: number;
  /** How long fetching such a URL may take; 60 s by default. */
  fetchTimeoutMs?: number;
}

/** One run's execution: what its three parts (prepare, host, finish) share. */
export interface RunContext {
  /** The worker's dependencies, with a logger whose every line names this run. */
  deps: ExecuteRunDeps;
  run: ClaimedRun;
  holder: Holder;
  /** The worker's handle to stop the run (cancel, shutdown, lost claim); the time limit's too. */
  control: AbortController;
  /** The clock's time, in milliseconds. */
  now: () => number;
  /** The run's span's traceparent (tracing on): its steps' spans are its children. */
  traceparent?: string;
}

/**
 * Executes one claimed run to its end: the engine works in a process of `deps.hosts` while this
 * thread keeps the time limit, writes the step log as the engine reports it, and writes the
 * ending as the state machine allows. `control` is the worker's handle to stop it (cancel,
 * shutdown, lost claim); the time limit aborts it too. Never rejects for a run's own failure.
 * Resolves to true when the run was put back in the queue (the worker is shutting down). `watch`
 * brings what the worker reads of the run every 200 ms: a pause asked for, a resume.
 */
export async function executeRun(
  workerDeps: ExecuteRunDeps,
  run: ClaimedRun,
  host: ReservedHost,
  control: AbortController,
  watch: RunWatch,
): Promise<boolean> {
  const span = workerDeps.tracing && runSpan(workerDeps.tracing, run);
  const logger = workerDeps.logger.child({
    runId: run.id,
    skillId: run.skillId,
    attempt: run.attempt,
    ...(span && { trace_id: span.traceId }),
  });
  // Every line logged below is about this run and says which.
  const deps: ExecuteRunDeps = { ...workerDeps, logger };
  const holder: Holder = { runId: run.id, workerId: deps.workerId };
  const now = () => deps.clock.now().getTime();
  const context: RunContext = {
    ...{ deps, run, holder, control, now },
    ...(span && { traceparent: span.traceparent }),
  };
  try {
    return await execute(context, host, watch);
  } finally {
    span?.end();
  }
}

/** The run from its claim to its ending; true when it went back to the queue. */
async function execute(context: RunContext, host: ReservedHost, watch: RunWatch): Promise<boolean> {
  const { deps, run } = context;
  const { logger } = deps;
  logger.info({ worker: deps.workerId }, `run started: ${run.skillId}, attempt ${run.attempt}`);
  let prepared: PreparedRun | UnstartedRun | undefined;
  try {
    prepared = await prepareRun(context, watch);
  } finally {
    // The reserved process is the run's slot: given back (before any ending is written) unless
    // the run starts in it, after which the process frees itself when the run is done with it.
    if (prepared?.ready !== true) deps.hosts.unreserve(host);
  }
  const live = new LiveRelay(
    { liveViews: deps.liveViews, runId: run.id, clock: deps.clock, logger },
    run.woken,
  );
  watch.onLive((watchEndsAt) => live.heard(watchEndsAt));
  try {
    if (!prepared.ready) return await endUnstarted(context, prepared);
    const hosted = await hostRun(context, prepared, host, live);
    return await finishRun(context, prepared, hosted);
  } finally {
    await live.close();
  }
}

/**
 * The span of one execution of a run: the child of the request that queued it, or, for a rerun
 * or a scheduled run, a trace of its own linked to that request (it follows from it but is not
 * part of its work). docs/decisions/0063-traces-with-explicit-context.md
 */
function runSpan(
  { tracer, module }: Tracing,
  run: ClaimedRun,
): { traceparent: string; traceId: string; end(): void } {
  const follows = run.rerunOf !== null || run.scheduled;
  const stored = run.traceParent ?? undefined;
  const span = tracer.start(`run ${run.skillId}`, {
    ...(!follows && stored && { parent: stored }),
    ...(follows && stored && { links: [stored] }),
    attributes: {
      "skillrun.run_id": run.id,
      "skillrun.skill_id": run.skillId,
      "skillrun.attempt": run.attempt,
      ...(run.rerunOf !== null && { "skillrun.rerun_of": run.rerunOf }),
    },
  });
  const traceparent = module.traceparentOf(span);
  return {
    traceparent,
    traceId: span.spanContext().traceId,
    end: () => module.endSpan(span),
  };
}
