import type { EngineEvent, RunJob, StepRef } from "@skillrun/engine";
import { toRunEvent } from "../engine-events.js";
import type { RunContext } from "../execute-run.js";
import type { LiveRelay } from "../live-relay.js";
import type { HostedRun, HostedRunHandlers, HostOutcome, ReservedHost } from "../run-hosts.js";
import { resumable } from "./go-on-from.js";
import type { PreparedRun } from "./prepare.js";

/** What the run's process has told of its work so far; read when its ending is written. */
export interface RunProgress {
  data: Record<string, unknown>;
  /** The step under way, for the error of a run whose process had to be ended. */
  step: StepRef | undefined;
  /**
   * The step with effects recorded last: under `on_worker_loss: resume` only while it is under
   * way (a checkpoint after it clears it), otherwise the attempt's first.
   */
  effectsStep: StepRef | undefined;
  /** A checkpoint was too large to keep (told once in the step log). */
  checkpointOverLimit?: boolean;
  /** The browser's storage at the run's end, as JSON, for its profile (never logged). */
  profileJson?: string;
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
  live: LiveRelay,
): Promise<HostedWork> {
  const progress: RunProgress = { data: {}, step: undefined, effectsStep: undefined };
  const hosted = context.deps.hosts.execute(
    host,
    jobOf(context, prepared),
    { ...handlersOf(context, prepared, progress), onFrame: (jpeg) => live.frame(jpeg) },
    context.control.signal,
  );
  prepared.pauses.attach(prepared.timeLimit, hosted.requestPause);
  live.attach(hosted.setLive);
  const outcome = await hosted.outcome;
  prepared.timeLimit.stop();
  return { outcome, closed: hosted.closed, progress };
}

/** What the run's process is given: the skill, its inputs and secrets, limits, where to write. */
function jobOf({ deps, run, now, traceparent }: RunContext, prepared: PreparedRun): RunJob {
  return {
    ...(traceparent !== undefined &&
      deps.tracing && { trace: { traceparent, otlp: deps.tracing.target } }),
    definition: prepared.definition,
    skills: prepared.skills,
    inputs: prepared.inputs,
    secrets: prepared.secrets,
    run: { id: run.id, skill_id: run.skillId, owner: run.owner, attempt: run.attempt },
    limits: deps.limits,
    network: deps.network,
    clockOffsetMs: now() - Date.now(),
    files: { dir: prepared.filesDir, existing: prepared.inputFiles },
    ...(prepared.resume && { resume: prepared.resume }),
    ...(prepared.profile && {
      profile: {
        state: prepared.profile.state,
        save: prepared.profile.save ?? "never",
        maxBytes: deps.profiles.limits.maxBytes,
      },
    }),
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
  { deps, run }: RunContext,
  prepared: PreparedRun,
  progress: RunProgress,
): Omit<HostedRunHandlers, "onFrame"> {
  const { writer, budget, fileIndex, pauses } = prepared;
  return {
    onEvent: (event: EngineEvent) => {
      // A step that ended no longer waits.
      if (event.type === "step_finished" || event.type === "step_failed") prepared.parking.over();
      if (event.type === "step_started") progress.step = event.step;
      if (event.type === "step_finished" || event.type === "step_failed") {
        deps.metrics.stepDuration.observe({ kind: event.step.kind }, event.duration_ms / 1000);
      }
      const entry = toRunEvent(run.id, event, run.attempt);
      if (entry === null) return;
      if (event.type === "data_updated") {
        progress.data = { ...progress.data, ...event.changes };
        writer.push(budget.admit(entry), progress.data);
      } else {
        writer.push(budget.admit(entry));
      }
    },
    onCheckpoint: ({ step, seq, topLevel, json }) => {
      const bytes = Buffer.byteLength(json);
      const over = bytes > deps.checkpointMaxBytes;
      if (over && !progress.checkpointOverLimit) {
        progress.checkpointOverLimit = true;
        const message = `the checkpoint before step ${step} is ${bytes} bytes, more than RUN_CHECKPOINT_MAX_BYTES (${deps.checkpointMaxBytes}): it is not kept, and the run cannot go on from there (after a lost worker, or in a rerun)`;
        writer.push(
          budget.admit({
            runId: run.id,
            at: deps.clock.now(),
            type: "log",
            level: "warn",
            message,
          }),
        );
      }
      // Past a step boundary the run may go on from there: no step with effects is under way.
      if (resumable(prepared)) progress.effectsStep = undefined;
      // A wait or a pause is over once the run passes a boundary.
      prepared.parking.over();
      prepared.parking.checkpointed({ step, seq, topLevel, json, kept: !over });
      writer.pushCheckpoint({
        label: step,
        seq,
        topLevel,
        sealed: over ? null : deps.secrets.sealCheckpoint(run.id, json),
        bytes,
        at: deps.clock.now(),
      });
    },
    onProblem: (message) =>
      writer.push(
        budget.admit({ runId: run.id, at: deps.clock.now(), type: "log", level: "warn", message }),
      ),
    onFile: (file) => fileIndex.push(file),
    onBrowserLaunched: (ms) => deps.metrics.browserLaunch.observe(ms / 1000),
    onProfile: (json) => {
      progress.profileJson = json;
    },
    onEffects: async (at) => {
      // Written with the step log before it, so the mark never lands before its checkpoint.
      if (!(await writer.markEffects(at.label))) {
        throw new Error("the run is no longer this worker's");
      }
      progress.effectsStep = at;
    },
    onWaiting: (_step, until) => prepared.parking.waits(until),
    onPaused: (request) => pauses.paused(request),
    onPauseAbandoned: () => void pauses.abandoned(),
  };
}
