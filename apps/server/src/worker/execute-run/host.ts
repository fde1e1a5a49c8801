import type { EngineEvent, RunJob, StepRef } from "@skillrun/engine";
import { toRunEvent } from "../engine-events.js";
import type { RunContext } from "../execute-run.js";
import type { HostedRun, HostedRunHandlers, HostOutcome, ReservedHost } from "../run-hosts.js";
import type { PreparedRun } from "./prepare.js";

/** What the run's process has told of its work so far; read when its ending is written. */
export interface RunProgress {
  data: Record<string, unknown>;
  /** The step under way, for the error of a run whose process had to be ended. */
  step: StepRef | undefined;
  /** The first step of this attempt that may have had effects, once recorded. */
  effectsStep: StepRef | undefined;
}

/** The engine's work on a run, done: how it ended, and what is still to come of it. */
export interface HostedWork {
  outcome: HostOutcome;
  /** Settles once the run's browser is closed (see HostedRun.closed). */
  closed: HostedRun["closed"];
  progress: RunProgress;
}

/**
 * Runs the engine on the prepared run in its reserved process, relaying the engine's events to
 * the step log, its files to the index, its effects and pauses to the database, and the worker's
 * stops (`control`) and the time limit to the engine. Resolves once the engine is done (its time
 * limit stopped); the run's browser may still be closing.
 */
export async function hostRun(
  context: RunContext,
  prepared: PreparedRun,
  host: ReservedHost,
): Promise<HostedWork> {
  const progress: RunProgress = { data: {}, step: undefined, effectsStep: undefined };
  const hosted = context.deps.hosts.execute(
    host,
    jobOf(context, prepared),
    handlersOf(context, prepared, progress),
    context.control.signal,
  );
  prepared.pauses.attach(prepared.timeLimit, hosted.requestPause);
  const outcome = await hosted.outcome;
  prepared.timeLimit.stop();
  return { outcome, closed: hosted.closed, progress };
}

/** What the run's process is given: the skill, its inputs and secrets, limits, where to write. */
function jobOf({ deps, run, now }: RunContext, prepared: PreparedRun): RunJob {
  return {
    definition: prepared.definition,
    skills: prepared.skills,
    inputs: prepared.inputs,
    secrets: prepared.secrets,
    run: { id: run.id, skill_id: run.skillId, owner: run.owner, attempt: run.attempt },
    limits: deps.limits,
    network: deps.network,
    clockOffsetMs: now() - Date.now(),
    files: { dir: prepared.filesDir, existing: prepared.inputFiles },
    browser: {
      chromium: deps.chromium,
      videoPath: prepared.videoPath,
      tag: run.id,
      user: deps.browser.user,
      memoryLimitBytes: deps.browser.memoryLimitBytes,
    },
  };
}

/** How what the run's process reports is recorded, into `progress` as well. */
function handlersOf(
  { deps, run, holder }: RunContext,
  { writer, budget, fileIndex, pauses }: PreparedRun,
  progress: RunProgress,
): HostedRunHandlers {
  return {
    onEvent: (event: EngineEvent) => {
      if (event.type === "step_started") progress.step = event.step;
      const entry = toRunEvent(run.id, event, run.attempt);
      if (entry === null) return;
      if (event.type === "data_updated") {
        progress.data = { ...progress.data, ...event.changes };
        writer.push(budget.admit(entry), progress.data);
      } else {
        writer.push(budget.admit(entry));
      }
    },
    onProblem: (message) =>
      writer.push(
        budget.admit({ runId: run.id, at: deps.clock.now(), type: "log", level: "warn", message }),
      ),
    onFile: (file) => fileIndex.push(file),
    onEffects: async (at) => {
      if (!(await deps.execution.markEffects(holder, at.label))) {
        throw new Error("the run is no longer this worker's");
      }
      progress.effectsStep = at;
    },
    onPaused: (request) => pauses.paused(request),
    onPauseAbandoned: () => void pauses.abandoned(),
  };
}
