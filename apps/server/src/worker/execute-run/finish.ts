import { rm, stat } from "node:fs/promises";
import {
  DEFAULT_SKILL_TIMEOUT_MS,
  formatBytes,
  killBrowserProcesses,
  type RecordedVideo,
  type RunHostResult,
  type SkillDefinition,
  type StepError,
  type StepRef,
} from "@skillrun/engine";
import type { NewRunEvent } from "../../db/repositories/run-events.js";
import type { Holder } from "../../db/repositories/run-execution.js";
import type { StoredCheckpoint } from "../../db/runs/checkpoints.js";
import { EventBudget } from "../event-limits.js";
import type { ExecuteRunDeps, RunContext } from "../execute-run.js";
import type { HostOutcome } from "../run-hosts.js";
import { RunStop } from "../run-stop.js";
import { fileOverQuotaMessage } from "../storage-quota.js";
import type { HostedWork } from "./host.js";
import type { PreparedRun, UnstartedRun } from "./prepare.js";
import { saveProfile } from "./profile.js";

/** What the run's writer handed over: the last events and checkpoints, for the ending to write. */
type StepLog = { events: readonly NewRunEvent[]; checkpoints: readonly StoredCheckpoint[] };

const NO_STEP_LOG: StepLog = { events: [], checkpoints: [] };

/**
 * Ends a run the engine is done with: once its browser is closed and its video and files are
 * recorded, writes its ending (with the step log's last events) as its outcome says. True when
 * the run was put back in the queue.
 */
export async function finishRun(
  context: RunContext,
  prepared: PreparedRun,
  { outcome, closed, progress }: HostedWork,
): Promise<boolean> {
  const { deps, run, holder, control, now } = context;
  // Closed before the ending is written, so a run that has ended has its video in place.
  await recordClosing(context, prepared, await closed);
  // Every file is listed once the run has ended; a pause given up is undone before it ends.
  await Promise.all([prepared.fileIndex.flushed(), prepared.pauses.left()]);
  const ending = overQuota(
    endingOf(outcome, progress.data, progress.step, deps.memoryMb),
    prepared.fileIndex.refused,
    deps.files.uploads.quotaBytes,
  );
  // Saved before the ending, while this worker holds the run, its log line in the step log.
  if (progress.profileJson !== undefined) {
    await saveProfile(context, prepared, progress.profileJson, ending);
  }
  // The step log's last events go with the ending, in its transaction.
  const stepLog = await prepared.writer.handOver();
  const durationMs = now() - prepared.started;
  const at = deps.clock.now();

  switch (ending.outcome) {
    case "finished": {
      const event: NewRunEvent = { runId: run.id, at, type: "run_finished", durationMs };
      await end(deps, holder, "finish", ending.data, trimmed(deps, event), stepLog);
      return false;
    }
    case "failed":
      if (outcome.type === "crashed") {
        deps.logger.error({ reason: outcome.message }, "a run process died");
      }
      await fail(deps, holder, ending.data, ending.error, prepared.started, ending.step, stepLog);
      return false;
    case "aborted":
      return stopped(
        deps,
        holder,
        ending,
        timeoutMessageOf(prepared.definition, control.signal.reason),
        durationMs,
        progress.effectsStep,
        stepLog,
      );
  }
}

/** Ends a run its process never started (see UnstartedRun); true when it went back to the queue. */
export async function endUnstarted(
  { deps, holder, now }: RunContext,
  unstarted: UnstartedRun,
): Promise<boolean> {
  if (unstarted.outcome === "aborted") {
    const { reason, timeoutMessage, started } = unstarted;
    const result = { outcome: "aborted", data: {}, reason } as const;
    return stopped(deps, holder, result, timeoutMessage, now() - started);
  }
  const error: StepError = { step: null, message: unstarted.message };
  await fail(deps, holder, {}, error, unstarted.started ?? now());
  return false;
}

/**
 * A run that stored a file its owner's storage quota refused ends in reset naming the quota: the
 * refusal stops it (`quota`), but the engine may have ended by itself before (the refused file
 * its last step), and then its ending is replaced. A cancel or a time limit stands.
 */
function overQuota(
  ending: RunHostResult,
  refused: readonly string[],
  quotaBytes: number | null,
): RunHostResult {
  const [file] = refused;
  if (file === undefined || ending.outcome === "aborted") return ending;
  const message = fileOverQuotaMessage(file, quotaBytes ?? 0);
  const step = ending.outcome === "failed" ? ending.step : undefined;
  const { error: _previous, ...kept } = ending.data;
  return {
    outcome: "failed",
    data: kept,
    error: { step: step?.label ?? null, message },
    ...(step && { step }),
  };
}

/** Records how the run's browser closed: its video, or its processes killed if it was lost. */
async function recordClosing(
  { deps, run }: RunContext,
  { writer, budget, videoPath }: PreparedRun,
  { video, abandoned }: { video: RecordedVideo | null; abandoned: boolean },
): Promise<void> {
  if (abandoned) {
    const killed = killBrowserProcesses(run.id);
    if (killed > 0)
      deps.logger.warn({ killed }, "killed the browser of a run whose process was lost");
  }
  if (video === null) return;
  const size = (await stat(videoPath).catch(() => null))?.size ?? 0;
  if (!(await deps.files.runFiles.recordVideo(run.id, run.owner, size))) {
    // Written after the run's work, a video over the owner's quota is dropped, and the log says so.
    await rm(videoPath, { force: true });
    const quota = deps.files.uploads.quotaBytes ?? 0;
    const message = `the video (${formatBytes(size)}) was not kept: it would take the owner's stored files over their quota of ${formatBytes(quota)} (${quota} bytes, OWNER_STORAGE_MAX_BYTES)`;
    writer.push(
      budget.admit({ runId: run.id, at: deps.clock.now(), type: "log", level: "warn", message }),
    );
    return;
  }
  const { width, height, frames, durationMs: duration_ms } = video;
  writer.push(
    budget.admit({
      runId: run.id,
      at: deps.clock.now(),
      type: "video_recorded",
      message: `video of ${(duration_ms / 1000).toFixed(1)} s at ${width}×${height}`,
      data: { width, height, frames, duration_ms },
    }),
  );
}

/** How the run ends, from what its process reported (or how the process was ended). */
export function endingOf(
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

/**
 * What a stopped run's ending says: the stop's own explanation (an ask nobody answered, a file
 * over the storage quota), else the run's time limit.
 */
export function timeoutMessageOf(definition: SkillDefinition, reason: unknown): string {
  if (reason instanceof RunStop && reason.explanation !== undefined) return reason.explanation;
  const limit = definition.timeout ?? `${DEFAULT_SKILL_TIMEOUT_MS / 60_000}m`;
  return `the run exceeded its time limit of ${limit}`;
}

/**
 * Ends the run after the engine was stopped, as the reason of the stop says; true when it was
 * put back in the queue. `explanation`: what timeoutMessageOf says of the stop (a timeout's
 * message, or the quota a `quota` stop names). `stepLog`: its last events and checkpoints, not yet written.
 */
async function stopped(
  deps: ExecuteRunDeps,
  holder: Holder,
  result: Extract<RunHostResult, { outcome: "aborted" }>,
  explanation: string,
  durationMs: number,
  effectsStep?: StepRef,
  stepLog: StepLog = NO_STEP_LOG,
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
      const message = explanation;
      const error: StepError = { step: result.step?.label ?? null, message };
      const event: NewRunEvent = { ...base, type: "run_timed_out", message, data: { error } };
      await end(deps, holder, "timeout", { ...result.data, error }, event, stepLog);
      return false;
    }
    case "cancel": {
      // The cancel itself already moved the run to `cancel`; the log says where it stopped.
      const message = "stopped: the run was cancelled";
      const event: NewRunEvent = { ...base, type: "run_cancelled", message };
      await deps.execution.recordCancelled(holder, event, stepLog.events);
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
      if (stepLog.events.length + stepLog.checkpoints.length > 0) {
        await deps.execution.record(holder, stepLog);
      }
      const released = await deps.execution.release(holder, {
        ...base,
        type: "run_released",
        message,
      });
      if (released) deps.logger.info({ durationMs }, "run put back in the queue: worker shut down");
      return released;
    }
    case "quota": {
      // A file the run stored was refused for its owner's storage quota: the stop says which.
      const message = explanation;
      const error: StepError = { step: result.step?.label ?? null, message };
      const event: NewRunEvent = { ...base, type: "run_failed", message, data: { error } };
      await end(deps, holder, "reset", { ...result.data, error }, event, stepLog);
      return false;
    }
    case "lost":
      deps.logger.warn("stopped a run this worker no longer holds");
      return false;
    case "park":
      // Parked: its row says so, and a worker goes on with it from its checkpoint.
      return false;
  }
}

/** Ends the run in `reset` for `error`; `started`: when it started, for its duration. */
async function fail(
  deps: ExecuteRunDeps,
  holder: Holder,
  data: Record<string, unknown>,
  error: StepError,
  started: number,
  step?: StepRef,
  stepLog: StepLog = NO_STEP_LOG,
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

/** Writes the ending, unless the run has ended elsewhere meanwhile (that ending stands). */
async function end(
  deps: ExecuteRunDeps,
  holder: Holder,
  to: "finish" | "reset" | "timeout",
  data: Record<string, unknown>,
  event: NewRunEvent,
  stepLog: StepLog = NO_STEP_LOG,
): Promise<void> {
  const { events, checkpoints } = stepLog;
  const ended = await deps.execution.endOrRecordCancel(
    holder,
    to,
    data,
    event,
    events,
    checkpoints,
  );
  if (ended) {
    logEnded(deps, to, event.durationMs, data.error as StepError | undefined);
  } else {
    // Cancelled (or recovered) between the last step and this write: that ending stands, and a
    // cancel's step log still gets its last events.
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
  // A cancel is counted by the process that wrote it (the API's, RunRepository.cancel).
  if (state !== "cancel") deps.metrics.runEnded(state, durationMs);
  const took = durationMs === undefined ? "" : ` after ${(durationMs / 1000).toFixed(1)} s`;
  const level = state === "reset" || state === "timeout" ? "warn" : "info";
  deps.logger[level]({ state, durationMs, ...(error && { error }) }, `run ended: ${state}${took}`);
}
