import {
  type ChromiumEnv,
  DEFAULT_SKILL_TIMEOUT_MS,
  type EngineEvent,
  type EngineLimits,
  killBrowserProcesses,
  type NetworkPolicy,
  type RunHostResult,
  type SkillDefinition,
  type StepError,
  type StepRef,
  setLongTimeout,
} from "@skillrun/engine";
import type { Logger } from "pino";
import type { NewRunEvent } from "../db/repositories/run-events.js";
import type {
  ClaimedRun,
  Holder,
  RunExecutionRepository,
} from "../db/repositories/run-execution.js";
import type { Clock } from "../domain/clock.js";
import type { VideoStore } from "../videos/video-store.js";
import type { BrowserSettings } from "./browser-settings.js";
import { toRunEvent } from "./engine-events.js";
import { EventBudget, type EventLimits } from "./event-limits.js";
import { EventWriter } from "./event-writer.js";
import type { HostOutcome, ReservedHost, RunHosts } from "./run-hosts.js";
import { RunStop } from "./run-stop.js";

export interface ExecuteRunDeps {
  execution: RunExecutionRepository;
  logger: Logger;
  /** The time every event and ending is stamped with. */
  clock: Clock;
  workerId: string;
  /** Where browser runs' videos and screenshots are kept. */
  videos: VideoStore;
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
}

/**
 * Executes one claimed run to its end: the engine works in a process of `deps.hosts` while this
 * thread keeps the time limit, writes the step log as the engine reports it, and writes the
 * ending as the state machine allows. `control` is the worker's handle to stop it (cancel,
 * shutdown, lost claim); the time limit aborts it too. Never rejects for a run's own failure.
 */
export async function executeRun(
  deps: ExecuteRunDeps,
  run: ClaimedRun,
  host: ReservedHost,
  control: AbortController,
): Promise<void> {
  const { execution, logger, clock } = deps;
  const now = () => clock.now().getTime();
  const holder: Holder = { runId: run.id, workerId: deps.workerId };
  const log = logger.child({ runId: run.id, skillId: run.skillId, attempt: run.attempt });
  const definition = storedDefinition(run.definition);
  if (definition === null) {
    const message = `skill ${run.skillId} has no usable stored definition; import it again`;
    deps.hosts.unreserve(host);
    await fail(deps, holder, {}, { step: null, message }, now());
    return;
  }

  const writer = new EventWriter(execution, holder, log);
  const budget = new EventBudget(deps.eventLimits);
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

  const videoPath = await deps.videos.pathForWriting(run.id);
  const started = now();
  // Chained, so a time limit past setTimeout's 24.8 days (imported before the 24 h maximum)
  // still waits instead of firing at once.
  const cancelTimer = setLongTimeout(
    () => control.abort(new RunStop("timeout")),
    definition.timeoutMs,
  );
  const hosted = deps.hosts.execute(
    host,
    {
      definition,
      inputs: run.inputs,
      run: { id: run.id, skill_id: run.skillId, owner: run.owner, attempt: run.attempt },
      limits: deps.limits,
      network: deps.network,
      clockOffsetMs: now() - Date.now(),
      browser: {
        chromium: deps.chromium,
        videoPath,
        screenshotDir: deps.videos.screenshotDirOf(run.id),
        tag: run.id,
        user: deps.browser.user,
        memoryLimitBytes: deps.browser.memoryLimitBytes,
      },
    },
    { onEvent, onProblem },
    control.signal,
  );
  const outcome = await hosted.outcome;
  cancelTimer();
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
  await writer.flushed();
  const durationMs = now() - started;
  const ending = endingOf(outcome, data, step, deps.memoryMb);
  const at = clock.now();

  switch (ending.outcome) {
    case "finished": {
      const event: NewRunEvent = { runId: run.id, at, type: "run_finished", durationMs };
      await end(deps, holder, "finish", ending.data, trimmed(deps, event));
      return;
    }
    case "failed":
      if (outcome.type === "crashed") log.error({ reason: outcome.message }, "a run process died");
      await fail(deps, holder, ending.data, ending.error, started, ending.step);
      return;
    case "aborted":
      await stopped(deps, holder, ending, definition, durationMs);
      return;
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

/** Ends the run after the engine was stopped, as the reason of the stop says. */
async function stopped(
  deps: ExecuteRunDeps,
  holder: Holder,
  result: Extract<RunHostResult, { outcome: "aborted" }>,
  definition: SkillDefinition,
  durationMs: number,
): Promise<void> {
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
      const limit = definition.timeout ?? `${DEFAULT_SKILL_TIMEOUT_MS / 60_000}m`;
      const message = `the run exceeded its time limit of ${limit}`;
      const error: StepError = { step: result.step?.label ?? null, message };
      const event: NewRunEvent = { ...base, type: "run_timed_out", message, data: { error } };
      await end(deps, holder, "timeout", { ...result.data, error }, event);
      return;
    }
    case "cancel": {
      // The cancel itself already moved the run to `cancel`; the log says where it stopped.
      const message = "stopped: the run was cancelled";
      await deps.execution.recordCancelled(holder, { ...base, type: "run_cancelled", message });
      return;
    }
    case "shutdown": {
      const message = `worker ${deps.workerId} shut down; the run was put back in the queue`;
      await deps.execution.release(holder, { ...base, type: "run_released", message });
      return;
    }
    case "lost":
      deps.logger.warn({ runId: holder.runId }, "stopped a run this worker no longer holds");
      return;
  }
}

async function fail(
  deps: ExecuteRunDeps,
  holder: Holder,
  data: Record<string, unknown>,
  error: StepError,
  started: number,
  step?: StepRef,
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
  await end(deps, holder, "reset", { ...data, error }, trimmed(deps, event));
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
): Promise<void> {
  const ended = await deps.execution.end(holder, to, data, event);
  if (!ended) {
    // Cancelled (or recovered) between the last step and this write: that ending stands.
    deps.logger.info({ runId: holder.runId, wanted: to }, "run had already ended elsewhere");
  }
}

/** The definition the import stored, or null when it is not one the engine can run. */
function storedDefinition(value: unknown): SkillDefinition | null {
  if (typeof value !== "object" || value === null) return null;
  const candidate = value as Partial<SkillDefinition>;
  if (!Array.isArray(candidate.steps) || typeof candidate.timeoutMs !== "number") return null;
  return value as SkillDefinition;
}
