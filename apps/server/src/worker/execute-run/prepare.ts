import {
  type Checkpoint,
  createRunFiles,
  type RunFile,
  type SkillDefinition,
  type StopKind,
} from "@skillrun/engine";
import { FileInputFailed, prepareFileInputs } from "../../files/prepare-file-inputs.js";
import { EventBudget } from "../event-limits.js";
import { EventWriter } from "../event-writer.js";
import type { RunContext } from "../execute-run.js";
import { FileIndexWriter } from "../file-index-writer.js";
import { RunParking } from "../run-parking.js";
import { RunPause, type RunWatch } from "../run-pause.js";
import { RunStop } from "../run-stop.js";
import { fileOverQuotaMessage } from "../storage-quota.js";
import { TimeLimit } from "../time-limit.js";
import { timeoutMessageOf } from "./finish.js";
import { copyRerunFiles, resumable, startingPoint } from "./go-on-from.js";
import { openProfile, type PreparedProfile, profileStartMessage } from "./profile.js";

/** A run ready to start in its process: what the engine is given, and what records its work. */
export interface PreparedRun {
  ready: true;
  definition: SkillDefinition;
  /** The skills it calls whose stored definitions are usable. */
  skills: Record<string, SkillDefinition>;
  /** Its inputs, secret ones opened and `file` ones stored as run files. */
  inputs: Record<string, unknown>;
  /** The secrets it reads. */
  secrets: Record<string, string>;
  /** The run files it starts with: its file inputs, or those it had when it goes on. */
  inputFiles: RunFile[];
  /** The checkpoint it goes on from; none when it starts at its first step. */
  resume?: Checkpoint;
  /** Its browser profile, opened; none when its skill names none. */
  profile?: PreparedProfile;
  filesDir: string;
  videoPath: string;
  /** When it started (the clock's ms): after setting aside an earlier attempt, before inputs. */
  started: number;
  timeLimit: TimeLimit;
  /** Writes its step log as the engine reports it; `budget` says how much of it is kept. */
  writer: EventWriter;
  budget: EventBudget;
  pauses: RunPause;
  /** Parks the run while it waits. */
  parking: RunParking;
  fileIndex: FileIndexWriter;
}

/** Why a run ends before its process starts it: a failure, or a stop while its inputs loaded. */
export type UnstartedRun =
  | {
      ready: false;
      outcome: "failed";
      message: string;
      /** When it started; none when it failed before (its duration is then nothing). */
      started?: number;
    }
  | {
      ready: false;
      outcome: "aborted";
      reason: StopKind | null;
      timeoutMessage: string;
      started: number;
    };

/**
 * Everything before the run's process starts the engine: its stored definitions, its secrets,
 * what an earlier attempt left set aside, its time limit started and its `file` inputs stored.
 */
export async function prepareRun(
  context: RunContext,
  watch: RunWatch,
): Promise<PreparedRun | UnstartedRun> {
  const { deps, run, holder, control, now } = context;
  const definition = storedDefinition(run.definition);
  if (definition === null) {
    const message = `skill ${run.skillId} has no usable stored definition; import it again`;
    return { ready: false, outcome: "failed", message };
  }
  const skills = calledDefinitions(run.calledSkills);
  // The secrets the run's skill and the skills it calls read.
  const opened = await deps.secrets.open(run, [definition, ...Object.values(skills)]);
  if (!opened.ok) return { ready: false, outcome: "failed", message: opened.message };

  const profile = await openProfile(context);
  if (typeof profile === "string") return { ready: false, outcome: "failed", message: profile };

  const { execution, clock, logger } = deps;
  const starting = await startingPoint(context, definition);
  if (starting.from === "nowhere")
    return { ready: false, outcome: "failed", message: starting.message };
  const writer = new EventWriter(execution, holder, logger, resumable({ definition }));
  const parking = new RunParking({
    execution,
    holder,
    clock,
    logger,
    control,
    writer,
    secrets: deps.secrets,
    parkAfterMs: deps.parkAfterMs,
  });
  // Listening to the watch from here on: a pause asked for while the inputs load is heard.
  const pauses = new RunPause(
    { execution, holder, clock, logger, control, eventsWritten: () => writer.flushed(), parking },
    watch,
  );
  watch.onPark(() => parking.parkNow());
  if (run.woken) await takeParkedAnswer(context, pauses);
  const budget = new EventBudget(deps.eventLimits);
  if (profile !== null) {
    const message = profileStartMessage(profile, starting.from === "checkpoint");
    writer.push(
      budget.admit({ runId: run.id, at: clock.now(), type: "log", level: "info", message }),
    );
  }
  if (starting.from === "checkpoint") {
    // Going on: the files stay (a rerun's copies included); only the video of the attempt
    // before is set aside.
    await setAsideEarlierVideo(context, writer, budget);
    if (run.rerunOf !== null && run.attempt === 1) {
      // A rerun's step log begins with where it came from.
      const message = `a rerun of ${run.rerunOf} from the checkpoint before step ${starting.checkpoint.step}`;
      writer.push(
        budget.admit({ runId: run.id, at: clock.now(), type: "log", level: "info", message }),
      );
    }
  } else {
    await setAsideEarlierAttempt(context, writer, budget);
    // Starting over: what an earlier attempt checkpointed no longer says where the run is.
    if (run.attempt > 1 && starting.from === "start") await execution.forgetCheckpoints(run.id);
  }
  const videoPath = await deps.fileStore.pathForWriting(run.id);
  const started = now();
  // Stopped while the run is paused; what earlier claims used of it (before a park) is spent.
  const timeLimit = new TimeLimit(Math.max(0, definition.timeoutMs - run.activeMs), () =>
    control.abort(new RunStop("timeout")),
  );
  parking.attach(timeLimit);
  const filesDir = deps.fileStore.filesDirOf(run.id);
  const quota = deps.files.uploads.quotaBytes ?? 0;
  // Stopped at once: the steps after a refused file would go on without it, their effects
  // outside the run included, only for the run to end in reset anyway.
  const fileIndex = new FileIndexWriter(deps.files.runFiles, run.id, filesDir, logger, (name) =>
    control.abort(new RunStop("quota", fileOverQuotaMessage(name, quota))),
  );
  const checkpoint = starting.from === "checkpoint" ? starting.checkpoint : undefined;
  const stored =
    checkpoint !== undefined && !run.rerunOwnInputs
      ? await filesKept(context, checkpoint)
      : await storeFileInputs(context, definition, opened.inputs, {
          filesDir,
          fileIndex,
          timeLimit,
          started,
        });
  if ("ready" in stored) return stored;
  const copied =
    checkpoint === undefined
      ? []
      : await copyRerunFiles(context, filesDir, fileIndex, stored.inputFiles);
  return {
    ready: true,
    definition,
    skills,
    inputs: stored.inputs,
    secrets: opened.secrets,
    inputFiles: [...stored.inputFiles, ...copied],
    ...(checkpoint && { resume: checkpoint }),
    ...(profile !== null && { profile }),
    filesDir,
    videoPath,
    started,
    timeLimit,
    writer,
    budget,
    pauses,
    parking,
    fileIndex,
  };
}

/**
 * What a client resumed a parked run with, taken now: the ask the run goes on at answers with it
 * rather than pausing again.
 */
async function takeParkedAnswer({ deps, holder }: RunContext, pauses: RunPause): Promise<void> {
  const event = {
    runId: holder.runId,
    at: deps.clock.now(),
    type: "run_resumed",
    message: "resumed by a client while it was parked",
  } as const;
  const resumed = await deps.execution.takeResume(holder, event);
  if (resumed !== null && "answer" in resumed) pauses.answeredWhileParked(resumed.answer);
}

/**
 * A run claimed again (its worker was lost, or shut down) starts over without touching what the
 * earlier attempt left; the index of files lists the attempt under way.
 */
async function setAsideEarlierAttempt(
  { deps, run }: RunContext,
  writer: EventWriter,
  budget: EventBudget,
): Promise<void> {
  const kept = await deps.fileStore.keepEarlierAttempt(run.id);
  if (kept === null) return;
  await deps.files.runFiles.forget([run.id]);
  const message = `what an earlier attempt left is kept in the video store as ${kept}.webm and ${kept}-files/`;
  writer.push(
    budget.admit({ runId: run.id, at: deps.clock.now(), type: "log", level: "info", message }),
  );
}

/**
 * What a run that goes on from its own checkpoint starts with: the inputs the checkpoint holds
 * (its file inputs already stored) and the files it has kept.
 */
async function filesKept(
  { deps, run }: RunContext,
  checkpoint: Checkpoint,
): Promise<{ inputs: Record<string, unknown>; inputFiles: RunFile[] }> {
  const inputFiles = (await deps.files.runFiles.list(run.owner, run.id)) ?? [];
  return { inputs: checkpoint.skills[0]?.inputs ?? run.inputs, inputFiles };
}

/** A run that goes on keeps its files; the video of the attempt before it is set aside. */
async function setAsideEarlierVideo(
  { deps, run }: RunContext,
  writer: EventWriter,
  budget: EventBudget,
): Promise<void> {
  const kept = await deps.fileStore.keepEarlierVideo(run.id);
  if (kept === null) return;
  const message = `the video of the attempt before is kept in the video store as ${kept}.webm`;
  writer.push(
    budget.admit({ runId: run.id, at: deps.clock.now(), type: "log", level: "info", message }),
  );
}

/**
 * The run's file inputs become run files before its steps start, within its time limit; a run
 * stopped meanwhile, or whose inputs cannot be stored, ends here (its time limit stopped).
 */
async function storeFileInputs(
  { deps, run, control, now }: RunContext,
  definition: SkillDefinition,
  given: Record<string, unknown>,
  into: { filesDir: string; fileIndex: FileIndexWriter; timeLimit: TimeLimit; started: number },
): Promise<{ inputs: Record<string, unknown>; inputFiles: RunFile[] } | UnstartedRun> {
  const { fileIndex, timeLimit, started } = into;
  const inputFiles = createRunFiles({
    dir: into.filesDir,
    now,
    onFile: (file) => fileIndex.push(file),
  });
  try {
    const inputs = await prepareFileInputs(
      { ...deps.files, fileStore: deps.fileStore, network: deps.network },
      { ...run, inputs: given },
      definition.inputs,
      inputFiles,
      control.signal,
    );
    // Indexed before the steps start: an input its owner's storage quota refuses is gone from
    // the folder, and stops the run before any step reads it.
    await fileIndex.flushed();
    if (!control.signal.aborted) return { inputs, inputFiles: inputFiles.list() };
    timeLimit.stop();
    return stoppedBeforeStart(definition, control.signal, started);
  } catch (error) {
    timeLimit.stop();
    await fileIndex.flushed();
    const { signal } = control;
    if (signal.aborted) return stoppedBeforeStart(definition, signal, started);
    let message = "internal error: the run's file inputs could not be stored";
    if (error instanceof FileInputFailed) message = error.message;
    else deps.logger.error({ err: error }, "could not store a run's file inputs");
    return { ready: false, outcome: "failed", message, started };
  }
}

/** A run stopped (cancelled, out of time, over its owner's quota) while its inputs were stored. */
function stoppedBeforeStart(
  definition: SkillDefinition,
  signal: AbortSignal,
  started: number,
): UnstartedRun {
  const reason = signal.reason instanceof RunStop ? signal.reason.kind : null;
  const timeoutMessage = timeoutMessageOf(definition, signal.reason);
  return { ready: false, outcome: "aborted", reason, timeoutMessage, started };
}

/** The called skills whose stored definitions are usable; a call of another fails in the run. */
export function calledDefinitions(
  stored: Record<string, unknown>,
): Record<string, SkillDefinition> {
  const usable: Record<string, SkillDefinition> = {};
  for (const [id, value] of Object.entries(stored)) {
    const definition = storedDefinition(value);
    if (definition !== null) usable[id] = definition;
  }
  return usable;
}

/** The definition the import stored, or null when it is not one the engine can run. */
export function storedDefinition(value: unknown): SkillDefinition | null {
  if (typeof value !== "object" || value === null) return null;
  const candidate = value as Partial<SkillDefinition>;
  if (!Array.isArray(candidate.steps) || typeof candidate.timeoutMs !== "number") return null;
  return value as SkillDefinition;
}
