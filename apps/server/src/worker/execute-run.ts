import {
  type ChromiumEnv,
  createRunFiles,
  DEFAULT_SKILL_TIMEOUT_MS,
  type EngineEvent,
  type EngineLimits,
  killBrowserProcesses,
  type NetworkPolicy,
  type RunHostResult,
  type SkillDefinition,
  type StepError,
  type StepRef,
  type StopKind,
} from "@skillrun/engine";
import type { Logger } from "pino";
import type { NewRunEvent } from "../db/repositories/run-events.js";
import type {
  ClaimedRun,
  Holder,
  RunExecutionRepository,
} from "../db/repositories/run-execution.js";
import type { RunFileRepository } from "../db/repositories/run-files.js";
import type { UploadedFileRepository } from "../db/repositories/uploaded-files.js";
import type { Clock } from "../domain/clock.js";
import type { FileStore } from "../files/file-store.js";
import { FileInputFailed, prepareFileInputs } from "../files/prepare-file-inputs.js";
import type { RunSecrets } from "../secrets/run-secrets.js";
import type { BrowserSettings } from "./browser-settings.js";
import { toRunEvent } from "./engine-events.js";
import { EventBudget, type EventLimits } from "./event-limits.js";
import { EventWriter } from "./event-writer.js";
import { FileIndexWriter } from "./file-index-writer.js";
import type { HostOutcome, ReservedHost, RunHosts } from "./run-hosts.js";
import { RunPause, type RunWatch } from "./run-pause.js";
import { RunStop } from "./run-stop.js";
import { TimeLimit } from "./time-limit.js";

export interface ExecuteRunDeps {
  execution: RunExecutionRepository;
  logger: Logger;
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
  /** As whom the run's browser runs, and how much memory it may use. */
  browser: BrowserSettings;
  /** Where the run may connect: its http steps and every request of its browser. */
  network: NetworkPolicy;
  /** Opens the run's secret inputs and the secrets it reads. */
  secrets: RunSecrets;
  /** The index of runs' files, and the uploads their `file` inputs name. */
  files: WorkerFiles;
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
  const log = workerDeps.logger.child({
    runId: run.id,
    skillId: run.skillId,
    attempt: run.attempt,
  });
  // Every line logged below is about this run and says which.
  const deps: ExecuteRunDeps = { ...workerDeps, logger: log };
  const { execution, clock } = deps;
  const now = () => clock.now().getTime();
  const holder: Holder = { runId: run.id, workerId: deps.workerId };
  log.info({ worker: deps.workerId }, `run started: ${run.skillId}, attempt ${run.attempt}`);
  const definition = storedDefinition(run.definition);
  if (definition === null) {
    const message = `skill ${run.skillId} has no usable stored definition; import it again`;
    deps.hosts.unreserve(host);
    await fail(deps, holder, {}, { step: null, message }, now());
    return false;
  }
  const skills = calledDefinitions(run.calledSkills);
  // The secrets the run's skill and the skills it calls read.
  const readers = [definition, ...Object.values(skills)];
  const opened = await deps.secrets.open(run, readers).catch((error: unknown) => {
    deps.hosts.unreserve(host);
    throw error;
  });
  if (!opened.ok) {
    deps.hosts.unreserve(host);
    await fail(deps, holder, {}, { step: null, message: opened.message }, now());
    return false;
  }

  const writer = new EventWriter(execution, holder, log);
  const pauses = new RunPause(
    { execution, holder, clock, logger: log, control, eventsWritten: () => writer.flushed() },
    watch,
  );
  const budget = new EventBudget(deps.eventLimits);
  // The first step of this attempt that may have had effects, once recorded.
  let effectsStep: StepRef | undefined;
  const onEffects = async (at: StepRef) => {
    if (!(await execution.markEffects(holder, at.label))) {
      throw new Error("the run is no longer this worker's");
    }
    effectsStep = at;
  };
  let data: Record<string, unknown> = {};
  // The step under way, for the error of a run whose process had to be ended.
  let step: StepRef | undefined;
  const onEvent = (event: EngineEvent) => {
    if (event.type === "step_started") step = event.step;
    const entry = toRunEvent(run.id, event, run.attempt);
    if (entry === null) return;
    if (event.type === "data_updated") {
      data = { ...data, ...event.changes };
      writer.push(budget.admit(entry), data);
    } else {
      writer.push(budget.admit(entry));
    }
  };
  const onProblem = (message: string) =>
    writer.push(
      budget.admit({ runId: run.id, at: clock.now(), type: "log", level: "warn", message }),
    );

  // A run claimed again (its worker was lost, or shut down) starts over without touching what
  // the earlier attempt left; the index of files lists the attempt under way.
  const kept = await deps.fileStore.keepEarlierAttempt(run.id);
  if (kept !== null) {
    await deps.files.runFiles.forget([run.id]);
    const message = `what an earlier attempt left is kept in the video store as ${kept}.webm and ${kept}-files/`;
    writer.push(
      budget.admit({ runId: run.id, at: clock.now(), type: "log", level: "info", message }),
    );
  }
  const videoPath = await deps.fileStore.pathForWriting(run.id);
  const started = now();
  // Stopped while the run is paused.
  const timeLimit = new TimeLimit(definition.timeoutMs, () =>
    control.abort(new RunStop("timeout")),
  );
  const filesDir = deps.fileStore.filesDirOf(run.id);
  const fileIndex = new FileIndexWriter(deps.files.runFiles, run.id, log);
  // The run's file inputs become run files before its steps start, within its time limit.
  const inputFiles = createRunFiles({ dir: filesDir, now, onFile: (file) => fileIndex.push(file) });
  let inputs: Record<string, unknown>;
  try {
    inputs = await prepareFileInputs(
      { ...deps.files, fileStore: deps.fileStore, network: deps.network },
      { ...run, inputs: opened.inputs },
      definition.inputs,
      inputFiles,
      control.signal,
    );
  } catch (error) {
    timeLimit.stop();
    deps.hosts.unreserve(host);
    await fileIndex.flushed();
    if (control.signal.aborted) {
      const reason: StopKind | null =
        control.signal.reason instanceof RunStop ? control.signal.reason.kind : null;
      return stopped(
        deps,
        holder,
        { outcome: "aborted", data: {}, reason },
        timeoutMessageOf(definition, control.signal.reason),
        now() - started,
      );
    }
    let message = "internal error: the run's file inputs could not be stored";
    if (error instanceof FileInputFailed) message = error.message;
    else log.error({ err: error }, "could not store a run's file inputs");
    await fail(deps, holder, {}, { step: null, message }, started);
    return false;
  }
  const hosted = deps.hosts.execute(
    host,
    {
      definition,
      skills,
      inputs,
      secrets: opened.secrets,
      run: { id: run.id, skill_id: run.skillId, owner: run.owner, attempt: run.attempt },
      limits: deps.limits,
      network: deps.network,
      clockOffsetMs: now() - Date.now(),
      files: { dir: filesDir, existing: inputFiles.list() },
      browser: {
        chromium: deps.chromium,
        videoPath,
        tag: run.id,
        user: deps.browser.user,
        memoryLimitBytes: deps.browser.memoryLimitBytes,
      },
    },
    {
      onEvent,
      onProblem,
      onFile: (file) => fileIndex.push(file),
      onEffects,
      onPaused: (request) => pauses.paused(request),
      onPauseAbandoned: () => void pauses.abandoned(),
    },
    control.signal,
  );
  pauses.attach(timeLimit, hosted.requestPause);
  const outcome = await hosted.outcome;
  timeLimit.stop();
  // Closed before the ending is written, so a run that has ended has its video in place.
  const { video, abandoned } = await hosted.closed;
  if (abandoned) {
    const killed = killBrowserProcesses(run.id);
    if (killed > 0) log.warn({ killed }, "killed the browser of a run whose process was lost");
  }
  if (video !== null) {
    const { width, height, frames, durationMs: duration_ms } = video;
    writer.push(
      budget.admit({
        runId: run.id,
        at: clock.now(),
        type: "video_recorded",
        message: `video of ${(duration_ms / 1000).toFixed(1)} s at ${width}×${height}`,
        data: { width, height, frames, duration_ms },
      }),
    );
  }
  // Every file is listed once the run has ended; a pause given up is undone before it ends.
  await Promise.all([fileIndex.flushed(), pauses.left()]);
  // The step log's last events go with the ending, in its transaction.
  const stepLog = await writer.handOver();
  const durationMs = now() - started;
  const ending = endingOf(outcome, data, step, deps.memoryMb);
  const at = clock.now();

  switch (ending.outcome) {
    case "finished": {
      const event: NewRunEvent = { runId: run.id, at, type: "run_finished", durationMs };
      await end(deps, holder, "finish", ending.data, trimmed(deps, event), stepLog);
      return false;
    }
    case "failed":
      if (outcome.type === "crashed") log.error({ reason: outcome.message }, "a run process died");
      await fail(deps, holder, ending.data, ending.error, started, ending.step, stepLog);
      return false;
    case "aborted":
      return stopped(
        deps,
        holder,
        ending,
        timeoutMessageOf(definition, control.signal.reason),
        durationMs,
        effectsStep,
        stepLog,
      );
  }
}

/** How the run ends, from what its process reported (or how the process was ended). */
function endingOf(
  outcome: HostOutcome,
  data: Record<string, unknown>,
  step: StepRef | undefined,
  memoryMb: number,
): RunHostResult {
  const where = step === undefined ? {} : { step };
  const failed = (message: string): RunHostResult => ({
    outcome: "failed",
    data,
    error: { step: step?.label ?? null, message },
    ...where,
  });
  switch (outcome.type) {
    case "result":
      return outcome.result;
    case "killed":
      return { outcome: "aborted", data, reason: outcome.reason, ...where };
    case "out_of_memory":
      return failed(`the run exceeded its memory limit of ${memoryMb} MB`);
    case "crashed":
      return failed(`internal error: ${outcome.message}`);
  }
}

/** Why a run that was stopped for time ended: its time limit, or an ask nobody answered. */
function timeoutMessageOf(definition: SkillDefinition, reason: unknown): string {
  if (reason instanceof RunStop && reason.explanation !== undefined) return reason.explanation;
  const limit = definition.timeout ?? `${DEFAULT_SKILL_TIMEOUT_MS / 60_000}m`;
  return `the run exceeded its time limit of ${limit}`;
}

/**
 * Ends the run after the engine was stopped, as the reason of the stop says; true when it was
 * put back in the queue. `stepLog`: its last events, not yet written.
 */
async function stopped(
  deps: ExecuteRunDeps,
  holder: Holder,
  result: Extract<RunHostResult, { outcome: "aborted" }>,
  timeoutMessage: string,
  durationMs: number,
  effectsStep?: StepRef,
  stepLog: readonly NewRunEvent[] = [],
): Promise<boolean> {
  const kind = result.reason ?? "lost";
  const at = deps.clock.now();
  const base = {
    runId: holder.runId,
    at,
    durationMs,
    ...(result.step && { step: result.step }),
  };
  switch (kind) {
    case "timeout": {
      const message = timeoutMessage;
      const error: StepError = { step: result.step?.label ?? null, message };
      const event: NewRunEvent = { ...base, type: "run_timed_out", message, data: { error } };
      await end(deps, holder, "timeout", { ...result.data, error }, event, stepLog);
      return false;
    }
    case "cancel": {
      // The cancel itself already moved the run to `cancel`; the log says where it stopped.
      const message = "stopped: the run was cancelled";
      const event: NewRunEvent = { ...base, type: "run_cancelled", message };
      await deps.execution.recordCancelled(holder, event, stepLog);
      logEnded(deps, "cancel", durationMs);
      return false;
    }
    case "shutdown": {
      if (effectsStep !== undefined) {
        // Run again, it would repeat what it may already have done: at most once, it ends.
        const during = result.step?.label ?? effectsStep.label;
        const message = `worker ${deps.workerId} shut down during step ${during}; not re-run because it may have had effects (a skill with on_worker_loss: restart is re-run instead)`;
        const error: StepError = { step: during, message };
        const event: NewRunEvent = { ...base, type: "run_failed", message, data: { error } };
        await end(deps, holder, "reset", { ...result.data, error }, event, stepLog);
        return false;
      }
      const message = `worker ${deps.workerId} shut down; the run was put back in the queue`;
      if (stepLog.length > 0) await deps.execution.record(holder, [...stepLog]);
      const released = await deps.execution.release(holder, {
        ...base,
        type: "run_released",
        message,
      });
      if (released) deps.logger.info({ durationMs }, "run put back in the queue: worker shut down");
      return released;
    }
    case "lost":
      deps.logger.warn("stopped a run this worker no longer holds");
      return false;
  }
}

async function fail(
  deps: ExecuteRunDeps,
  holder: Holder,
  data: Record<string, unknown>,
  error: StepError,
  started: number,
  step?: StepRef,
  stepLog: readonly NewRunEvent[] = [],
): Promise<void> {
  const at = deps.clock.now();
  const event: NewRunEvent = {
    runId: holder.runId,
    at,
    type: "run_failed",
    ...(step && { step }),
    durationMs: at.getTime() - started,
    message: error.step === null ? error.message : `${error.step}: ${error.message}`,
    data: { error },
  };
  await end(deps, holder, "reset", { ...data, error }, trimmed(deps, event), stepLog);
}

/** The ending event cut to the step log's sizes (a step's failure may quote a long response). */
function trimmed(deps: ExecuteRunDeps, event: NewRunEvent): NewRunEvent {
  return new EventBudget(deps.eventLimits).trim(event);
}

async function end(
  deps: ExecuteRunDeps,
  holder: Holder,
  to: "finish" | "reset" | "timeout",
  data: Record<string, unknown>,
  event: NewRunEvent,
  stepLog: readonly NewRunEvent[] = [],
): Promise<void> {
  const ended = await deps.execution.end(holder, to, data, event, stepLog);
  if (ended) {
    logEnded(deps, to, event.durationMs, data.error as StepError | undefined);
  } else {
    // Cancelled (or recovered) between the last step and this write: that ending stands.
    deps.logger.info({ wanted: to }, "run had already ended elsewhere");
  }
}

/**
 * The operator's line for a run's end: its state, how long it ran and, for a failure, where and
 * why (the engine has masked secret values out of the message already).
 */
function logEnded(
  deps: ExecuteRunDeps,
  state: "finish" | "reset" | "timeout" | "cancel",
  durationMs: number | undefined,
  error?: StepError,
): void {
  const took = durationMs === undefined ? "" : ` after ${(durationMs / 1000).toFixed(1)} s`;
  const level = state === "reset" || state === "timeout" ? "warn" : "info";
  deps.logger[level]({ state, durationMs, ...(error && { error }) }, `run ended: ${state}${took}`);
}

/** The definition the import stored, or null when it is not one the engine can run. */
/** The called skills whose stored definitions are usable; a call of another fails in the run. */
function calledDefinitions(stored: Record<string, unknown>): Record<string, SkillDefinition> {
  const usable: Record<string, SkillDefinition> = {};
  for (const [id, value] of Object.entries(stored)) {
    const definition = storedDefinition(value);
    if (definition !== null) usable[id] = definition;
  }
  return usable;
}

function storedDefinition(value: unknown): SkillDefinition | null {
  if (typeof value !== "object" || value === null) return null;
  const candidate = value as Partial<SkillDefinition>;
  if (!Array.isArray(candidate.steps) || typeof candidate.timeoutMs !== "number") return null;
  return value as SkillDefinition;
}
