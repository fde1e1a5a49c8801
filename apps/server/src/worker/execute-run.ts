import {
  type ChromiumEnv,
  createRunBrowser,
  DEFAULT_SKILL_TIMEOUT_MS,
  type EngineEvent,
  type ExecutionResult,
  executeSkill,
  findChromium,
  messageOf,
  type NetworkPolicy,
  type RunBrowser,
  type SkillDefinition,
  type StepError,
  type StepRef,
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
import { toRunEvent } from "./engine-events.js";
import { EventWriter } from "./event-writer.js";
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
  /** Where the run may connect: its http steps and every request of its browser. */
  network: NetworkPolicy;
}

/**
 * Executes one claimed run to its end: the skill's time limit, the step log, and the ending
 * written as the state machine allows. `control` is the worker's handle to stop it (cancel,
 * shutdown, lost claim); the time limit aborts it too. Never rejects for a run's own failure.
 */
export async function executeRun(
  deps: ExecuteRunDeps,
  run: ClaimedRun,
  control: AbortController,
): Promise<void> {
  const { execution, logger, clock } = deps;
  const now = () => clock.now().getTime();
  const holder: Holder = { runId: run.id, workerId: deps.workerId };
  const log = logger.child({ runId: run.id, skillId: run.skillId, attempt: run.attempt });
  const definition = storedDefinition(run.definition);
  if (definition === null) {
    const message = `skill ${run.skillId} has no usable stored definition; import it again`;
    await fail(deps, holder, {}, { step: null, message }, now());
    return;
  }

  const writer = new EventWriter(execution, holder, log);
  let data: Record<string, unknown> = {};
  const onEvent = (event: EngineEvent) => {
    const entry = toRunEvent(run.id, event, run.attempt);
    if (entry === null) return;
    if (event.type === "data_updated") {
      data = { ...data, ...event.changes };
      writer.push(entry, data);
    } else {
      writer.push(entry);
    }
  };

  const started = now();
  const timer = setTimeout(() => control.abort(new RunStop("timeout")), definition.timeoutMs);
  const browser = await runBrowser(deps, run.id, (message) =>
    writer.push({ runId: run.id, at: clock.now(), type: "log", level: "warn", message }),
  );
  let result: ExecutionResult;
  try {
    result = await executeSkill({
      definition,
      inputs: run.inputs,
      run: { id: run.id, skill_id: run.skillId, owner: run.owner, attempt: run.attempt },
      signal: control.signal,
      onEvent,
      now,
      browser: browser.access,
      network: deps.network,
    });
  } catch (error) {
    // The engine reports a step's failure as a result; a throw is a fault of the engine itself.
    log.error({ err: error }, "the engine failed");
    result = {
      outcome: "failed",
      data,
      error: { step: null, message: `internal error: ${messageOf(error)}` },
    };
  } finally {
    clearTimeout(timer);
  }
  // Closed before the ending is written, so a run that has ended has its video in place.
  const { video } = await browser.close();
  if (video !== null) {
    const { width, height, frames, durationMs: duration_ms } = video;
    writer.push({
      runId: run.id,
      at: clock.now(),
      type: "video_recorded",
      message: `video of ${(duration_ms / 1000).toFixed(1)} s at ${width}×${height}`,
      data: { width, height, frames, duration_ms },
    });
  }
  await writer.flushed();
  const durationMs = now() - started;
  const at = clock.now();

  switch (result.outcome) {
    case "finished": {
      const event: NewRunEvent = { runId: run.id, at, type: "run_finished", durationMs };
      await end(deps, holder, "finish", result.data, event);
      return;
    }
    case "failed":
      await fail(deps, holder, result.data, result.error, started, result.step);
      return;
    case "aborted":
      await stopped(deps, holder, result, definition, durationMs);
      return;
  }
}

/**
 * The run's browser: Chromium starts only if a browser step runs; the session is recorded into the
 * video store and screenshots are kept beside the video.
 */
async function runBrowser(
  deps: ExecuteRunDeps,
  runId: string,
  onProblem: (message: string) => void,
): Promise<RunBrowser> {
  return createRunBrowser({
    executablePath: () => findChromium(deps.chromium),
    video: { path: await deps.videos.pathForWriting(runId) },
    screenshotDir: deps.videos.screenshotDirOf(runId),
    tag: runId,
    network: deps.network,
    onProblem,
  });
}

/** Ends the run after the engine was aborted, as the reason of the abort says. */
async function stopped(
  deps: ExecuteRunDeps,
  holder: Holder,
  result: Extract<ExecutionResult, { outcome: "aborted" }>,
  definition: SkillDefinition,
  durationMs: number,
): Promise<void> {
  const kind = result.reason instanceof RunStop ? result.reason.kind : "lost";
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
      await deps.execution.record(holder, [{ ...base, type: "run_cancelled", message }]);
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
  await end(deps, holder, "reset", { ...data, error }, event);
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
