import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import {
  type ChromiumEnv,
  type EngineEvent,
  type EngineLimits,
  killBrowserProcesses,
  type NetworkPolicy,
  type ProfileFolder,
  type RunFile,
  type RunHostResult,
  type RunJob,
  removeProfileCopies,
  type SkillDefinition,
  type StepRef,
  type StorageState,
} from "@skillrun/engine";
import type { Logger } from "pino";
import { agentEventOf } from "../agent-api/agent-events.js";
import { agentHolderId } from "../db/repositories/agents.js";
import type { NewRunEvent } from "../db/repositories/run-events.js";
import type { Holder } from "../db/repositories/run-execution.js";
import { systemClock } from "../domain/clock.js";
import { FileInputFailed } from "../files/prepare-file-inputs.js";
import type { BrowserSettings } from "../worker/browser-settings.js";
import { toRunEvent } from "../worker/engine-events.js";
import { EventBudget, type EventLimits } from "../worker/event-limits.js";
import { EventWriter } from "../worker/event-writer.js";
import { endingOf, timeoutMessageOf } from "../worker/execute-run/finish.js";
import {
  endingSaves,
  profileStartMessage,
  profileTooLargeMessage,
} from "../worker/execute-run/profile.js";
import type { ReservedHost, RunHosts } from "../worker/run-hosts.js";
import { RunPause, RunWatch } from "../worker/run-pause.js";
import { RunStop } from "../worker/run-stop.js";
import { TimeLimit } from "../worker/time-limit.js";
import { prepareJobInputs } from "./job-inputs.js";
import type { RunFiles } from "./run-files.js";
import { AGENT_EVENTS_PER_CALL, RunLink, type RunLoss } from "./run-link.js";
import {
  type AgentEndRequest,
  type AgentJob,
  RunNotHeld,
  type ServerLink,
  type StorageStateBody,
} from "./server-link.js";

/** What the agent executes its runs with. */
export interface AgentRunDeps {
  server: ServerLink;
  hosts: RunHosts;
  logger: Logger;
  /** Where Chromium is looked for (--chromium, CHROMIUM_PATH, PATH). */
  chromium: ChromiumEnv;
  browser: BrowserSettings;
  limits: EngineLimits;
  eventLimits: EventLimits;
  /** RUN_MEMORY_MB, named in the error of a run that outgrew it. */
  memoryMb: number;
  /** Where each run's folder (files, video) is made while it runs; removed after. */
  workDir: string;
  /** Uploads a run's files and video to the server. */
  files: RunFiles;
  /** FILE_MAX_BYTES: the largest file a URL given for a `file` input may give. */
  fileMaxBytes: number;
  /** --profile-dir: the user's Chromium profile folder every run's browser starts on. */
  profileFolder?: ProfileFolder;
}

// How often the agent looks at each of its runs (and renews its lease): within the second a
// cancel or a pause may take to reach the run, and at 120 calls a minute a run, well inside an
// owner's RATE_LIMIT_PER_MINUTE (1,200 by default) for a few runs at once.
const WATCH_MS = 500;

// How long the agent keeps trying to report a run's ending before it gives up (the run's lease
// then runs out and the server recovers it as a lost agent's).
const END_RETRY_MS = [500, 1000, 2000, 4000, 8000, 15000];

/**
 * Executes one claimed job to its end in a reserved run process, as a worker executes a run
 * (worker/execute-run.ts): the same engine, process, step-log writer, pauses and time limit, with
 * the writes going over the agent endpoints (RunLink). `control` stops it (the agent shutting
 * down); a cancel or a lost claim, heard from the server, stops it too. Never rejects.
 */
export async function executeJob(
  deps: AgentRunDeps,
  job: AgentJob,
  host: ReservedHost,
  control: AbortController,
): Promise<void> {
  const runId = job.run_id;
  const logger = deps.logger.child({ runId, skillId: job.skill_id, attempt: job.attempt });
  const holder: Holder = { runId, workerId: agentHolderId(deps.server.agent.id) };
  const link = new RunLink(deps.server, runId, (loss: RunLoss) => {
    if (!control.signal.aborted) control.abort(new RunStop(loss));
  });
  const clock = systemClock;
  const writer = new EventWriter(link, holder, logger);
  const budget = new EventBudget(deps.eventLimits);
  const watch = new RunWatch();
  const pauses = new RunPause(
    { execution: link, holder, clock, logger, control, eventsWritten: () => writer.flushed() },
    watch,
  );
  const definition = job.definition as unknown as SkillDefinition;
  const started = Date.now();
  const timeLimit = new TimeLimit(job.time_limit_ms, () => {
    if (!control.signal.aborted) control.abort(new RunStop("timeout"));
  });
  const beat = setInterval(() => {
    const readAt = Date.now();
    link
      .look(holder.workerId)
      .then((run) => {
        if (run !== null) watch.heard(run, readAt);
      })
      .catch((error: unknown) => logger.warn({ err: error }, "could not reach the server"));
  }, WATCH_MS);
  const dir = join(deps.workDir, runId);
  const progress: {
    data: Record<string, unknown>;
    step: StepRef | undefined;
    /** The storage the browser ended with, for the run's profile (never logged). */
    profileJson?: string;
  } = { data: {}, step: undefined };
  const log = (level: "info" | "warn", message: string) =>
    writer.push(budget.admit({ runId, at: clock.now(), type: "log", level, message }));
  logger.info(`run started: ${job.skill_id}, attempt ${job.attempt}`);
  try {
    const filesDir = join(dir, "files");
    await mkdir(filesDir, { recursive: true, mode: 0o700 });
    if (job.profile !== undefined)
      log("info", profileStartMessage(preparedProfileOf(job.profile), false));
    const inputs = await startingInputs(deps, job, dir, control.signal);
    if ("state" in inputs) {
      // The run ends before its first step: an input that cannot be had, or a stop meanwhile.
      timeLimit.stop();
      clearInterval(beat);
      const ending =
        inputs.state === "reset"
          ? inputs
          : endOf(inputs.stopped, definition, control.signal.reason);
      const stepLog = await writer.handOver();
      await reportEnd(deps, logger, runId, {
        ...ending,
        events: endingEvents(stepLog.events),
        duration_ms: Date.now() - started,
      });
      return;
    }
    const videoPath = join(dir, "video.webm");
    const hosted = deps.hosts.execute(
      host,
      runJobOf(deps, job, definition, { dir, videoPath, ...inputs }),
      {
        onEvent: (event: EngineEvent) => {
          if (event.type === "step_started") progress.step = event.step;
          const entry = toRunEvent(runId, event, job.attempt);
          if (entry === null) return;
          if (event.type === "data_updated") {
            progress.data = { ...progress.data, ...event.changes };
            writer.push(budget.admit(entry), progress.data);
          } else {
            writer.push(budget.admit(entry));
          }
        },
        // Client runs keep no checkpoints: a lost agent's run starts over (docs/decisions/0066).
        onCheckpoint: () => {},
        onProblem: (message) =>
          writer.push(
            budget.admit({ runId, at: clock.now(), type: "log", level: "warn", message }),
          ),
        onFile: (file) => deps.files.file(runId, join(dir, "files"), file),
        onProfile: (json) => {
          progress.profileJson = json;
        },
        // An agent keeps no metrics of its own (the server's count the API's side).
        onBrowserLaunched: () => {},
        // No live view of a client run: its frames would have to cross the agent's link
        // (docs/decisions/0065); look() below never reports a watcher, so none are sent.
        onFrame: () => {},
        onEffects: async (at) => {
          if (!(await writer.markEffects(at.label))) {
            throw new Error("the run is no longer this agent's");
          }
        },
        onWaiting: () => {},
        onPaused: (request) => pauses.paused(request),
        onPauseAbandoned: () => void pauses.abandoned(),
      },
      control.signal,
    );
    pauses.attach(timeLimit, hosted.requestPause);
    const outcome = await hosted.outcome;
    timeLimit.stop();
    const { video, abandoned } = await hosted.closed;
    if (abandoned) {
      killBrowserProcesses(runId);
      // The run's copy of --profile-dir, which its killed process could not remove.
      await removeProfileCopies(runId);
    }
    if (video !== null) {
      const recorded = await deps.files.video(runId, videoPath);
      if (recorded) {
        const { width, height, frames, durationMs: duration_ms } = video;
        writer.push(
          budget.admit({
            runId,
            at: clock.now(),
            type: "video_recorded",
            message: `video of ${(duration_ms / 1000).toFixed(1)} s at ${width}×${height}`,
            data: { width, height, frames, duration_ms },
          }),
        );
      }
    }
    await Promise.all([deps.files.flushed(runId), pauses.left()]);
    clearInterval(beat);
    const ending = endingOf(outcome, progress.data, progress.step, deps.memoryMb);
    // Saved before the ending, while the agent holds the run, as a worker saves it.
    if (progress.profileJson !== undefined) {
      await saveProfile(deps, job, progress.profileJson, ending, log);
    }
    const stepLog = await writer.handOver();
    const reason = control.signal.reason;
    await reportEnd(deps, logger, runId, {
      ...endOf(ending, definition, reason),
      events: endingEvents(stepLog.events),
      duration_ms: Date.now() - started,
    });
  } catch (error) {
    logger.error({ err: error }, "could not execute the run");
  } finally {
    clearInterval(beat);
    timeLimit.stop();
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** What the run's process is given: as a worker gives it, with the agent's machine's settings. */
function runJobOf(
  deps: AgentRunDeps,
  job: AgentJob,
  definition: SkillDefinition,
  run: { dir: string; videoPath: string; inputs: Record<string, unknown>; files: RunFile[] },
): RunJob {
  const { dir, videoPath } = run;
  return {
    definition,
    skills: job.skills as unknown as Record<string, SkillDefinition>,
    inputs: run.inputs,
    secrets: job.secrets,
    run: { id: job.run_id, skill_id: job.skill_id, owner: "", attempt: job.attempt },
    limits: deps.limits,
    network: AGENT_NETWORK,
    clockOffsetMs: 0,
    files: { dir: join(dir, "files"), existing: run.files },
    ...(job.profile !== undefined && {
      profile: {
        state: job.profile.state as StorageState | null,
        save: job.profile.save,
        maxBytes: job.profile.max_bytes,
      },
    }),
    browser: {
      chromium: deps.chromium,
      videoPath,
      tag: job.run_id,
      user: deps.browser.user,
      memoryLimitBytes: deps.browser.memoryLimitBytes,
      ...(deps.profileFolder && { profileFolder: deps.profileFolder }),
    },
  };
}

/**
 * Where an agent's runs may connect: the user's own networks, which are why a run executes on
 * the user's machine; cloud metadata addresses stay refused (docs/security.md).
 */
const AGENT_NETWORK: NetworkPolicy = { allowPrivate: true };

type Ending = Omit<AgentEndRequest, "agent_id" | "events" | "duration_ms">;

/**
 * The job's inputs as the engine takes them, its `file` inputs made run files (sent on to the
 * server as the run's files); otherwise how the run ends before its first step: in reset naming
 * the input that cannot be had, or as the stop that came meanwhile.
 */
async function startingInputs(
  deps: AgentRunDeps,
  job: AgentJob,
  dir: string,
  signal: AbortSignal,
): Promise<
  | { inputs: Record<string, unknown>; files: RunFile[] }
  | (Ending & { state: "reset" })
  | { state: "stopped"; stopped: RunHostResult }
> {
  const filesDir = join(dir, "files");
  try {
    return await prepareJobInputs(
      { server: deps.server, network: AGENT_NETWORK, maxBytes: deps.fileMaxBytes },
      job,
      { filesDir, uploadsDir: join(dir, "uploads") },
      (file) => deps.files.file(job.run_id, filesDir, file),
      signal,
    );
  } catch (error) {
    if (signal.aborted) {
      const reason = signal.reason instanceof RunStop ? signal.reason.kind : null;
      return { state: "stopped", stopped: { outcome: "aborted", data: {}, reason } };
    }
    const message =
      error instanceof FileInputFailed
        ? error.message
        : `the run's file inputs could not be had: ${(error as Error).message}`;
    return { state: "reset", data: {}, error: { step: null, message } };
  }
}

/** The job's profile as the step log's start line describes it. */
function preparedProfileOf(profile: NonNullable<AgentJob["profile"]>) {
  return {
    name: profile.name,
    save: profile.save === "never" ? null : profile.save,
    state: profile.state as StorageState | null,
    version: profile.version,
  };
}

/**
 * Sends the storage the run's browser ended with to be saved as its profile's next version, when
 * the profile's `save` and the ending say so, and writes in the step log what became of it.
 */
async function saveProfile(
  deps: AgentRunDeps,
  job: AgentJob,
  json: string,
  ending: RunHostResult,
  log: (level: "info" | "warn", message: string) => void,
): Promise<void> {
  const profile = job.profile;
  if (profile === undefined || profile.save === "never" || !endingSaves(profile.save, ending)) {
    return;
  }
  const bytes = Buffer.byteLength(json);
  if (bytes > profile.max_bytes) {
    log("warn", profileTooLargeMessage(profile.name, bytes, profile.max_bytes));
    return;
  }
  try {
    const saved = await deps.server.saveProfile(job.run_id, JSON.parse(json) as StorageStateBody);
    log(saved.saved ? "info" : "warn", saved.message);
  } catch (error) {
    // Not held any more: the run was cancelled or taken, and its ending says so.
    if (error instanceof RunNotHeld) return;
    log("warn", `browser profile ${profile.name} was not saved: ${(error as Error).message}`);
  }
}

/** The ending to report, from how the engine's work ended and why it was stopped. */
function endOf(ending: RunHostResult, definition: SkillDefinition, reason: unknown): Ending {
  const at = "step" in ending ? (ending.step as StepRef | undefined) : undefined;
  const step = at === undefined ? {} : { step: wireStep(at) };
  switch (ending.outcome) {
    case "finished":
      return { state: "finish", data: ending.data };
    case "failed": {
      const { error: _error, ...data } = ending.data;
      return { state: "reset", data, error: ending.error, ...step };
    }
    case "aborted": {
      const { error: _error, ...data } = ending.data;
      switch (ending.reason ?? "lost") {
        case "timeout": {
          const message = timeoutMessageOf(definition, reason);
          return {
            state: "timeout",
            data,
            error: { step: at?.label ?? null, message },
            ...step,
          };
        }
        case "cancel":
          return { state: "cancel", ...step };
        case "quota": {
          const message = reason instanceof RunStop ? reason.message : "over a quota";
          return { state: "reset", data, error: { step: at?.label ?? null, message } };
        }
        default:
          // Shutting down (or lost): the server puts it back in the queue, or ends it in reset
          // when it began a step with effects; a lost run's end is refused, as it should be.
          return { state: "release", ...step };
      }
    }
  }
}

function wireStep(step: StepRef): NonNullable<AgentEndRequest["step"]> {
  const event: NewRunEvent = { runId: "", at: new Date(0), type: "log", step };
  return agentEventOf(event).step as NonNullable<AgentEndRequest["step"]>;
}

/** Reports the ending, trying again for a while should the server be out of reach. */
/**
 * The step log's last events as the ending carries them: at most AGENT_EVENTS_PER_CALL, the
 * latest (where the run stopped). More wait only when writes found the run no longer held.
 */
function endingEvents(events: readonly NewRunEvent[]): ReturnType<typeof agentEventOf>[] {
  return events.slice(-AGENT_EVENTS_PER_CALL).map(agentEventOf);
}

async function reportEnd(
  deps: AgentRunDeps,
  logger: Logger,
  runId: string,
  body: Omit<AgentEndRequest, "agent_id">,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      const after = await deps.server.end(runId, body);
      logger.info({ state: after.state }, `run ended: ${after.state}`);
      return;
    } catch (error) {
      const delay = END_RETRY_MS[attempt];
      if (delay === undefined || (error as Error).name === "RunNotHeld") {
        logger.warn({ err: error, wanted: body.state }, "the run's ending was not recorded");
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
