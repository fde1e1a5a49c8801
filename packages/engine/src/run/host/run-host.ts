import { parentPort } from "node:worker_threads";
import type { BrowserAccess } from "../../browser/browser-access.js";
import { findChromium } from "../../browser/find-chromium.js";
import { profileStateOf } from "../../browser/profile-state.js";
import { createRunBrowser, DEFAULT_VIEWPORT } from "../../browser/run-browser.js";
import { launchWarmBrowser, type WarmBrowser } from "../../browser/warm-browser.js";
import type { ProfileSave } from "../../definition/profile.js";
import { messageOf } from "../../error-message.js";
import { createRunFiles } from "../../files/run-files.js";
import { executeSkill } from "../execute-skill.js";
import { SecretMask } from "../secret-mask.js";
import type { ExecutionResult, PauseRequest, StepRef } from "../types.js";
import { LiveFrames } from "./live-frames.js";
import type { FromRunHost, RunHostResult, RunJob, StopKind, ToRunHost } from "./protocol.js";
import { stepTracing } from "./step-tracing.js";

// The entry of a process (or worker thread) that executes runs for a server, one at a time, so
// that a run's expressions, response parsing and browser driving never block the thread serving
// HTTP. The server caps its heap and kills it when a run does not stop when told.

interface Port {
  on(event: "message", listener: (message: ToRunHost) => void): void;
  postMessage(message: FromRunHost): void;
}

/** The channel to the server: the parent's IPC channel, or a worker thread's port. */
function serverPort(): Port {
  if (parentPort !== null) return parentPort;
  const send = process.send?.bind(process);
  if (send === undefined) throw new Error("run-host.js is started by a server, not on its own");
  // Nothing is left to do once the server is gone.
  process.on("disconnect", () => process.exit(0));
  return {
    on: (event, listener) => process.on(event, listener),
    postMessage: (message) => send(message),
  };
}

const port = serverPort();

let current: AbortController | undefined;
// The run's step waiting for the server to record that the run may have had effects.
let effectsAnswer: { resolve: () => void; reject: (error: Error) => void } | undefined;
// A client asked the run to pause before its next step.
let pauseAsked = false;
// The paused run, waiting for the server to say it was resumed.
let resumeWith: ((answer: unknown) => void) | undefined;
// The run's live view: its frames go to the server while somebody watches.
let live: LiveFrames | undefined;
// The browser launched for the next run once a run's own closed (docs/decisions/0070).
let warm: Promise<WarmBrowser | undefined> | undefined;

port.on("message", (message: ToRunHost) => {
  switch (message.type) {
    case "stop":
      current?.abort(message.reason);
      return;
    case "start":
      void execute(message.job);
      return;
    case "effects_recorded": {
      const answer = effectsAnswer;
      effectsAnswer = undefined;
      if (message.error === null) answer?.resolve();
      else answer?.reject(new Error(message.error));
      return;
    }
    case "pause":
      pauseAsked = true;
      return;
    case "live":
      live?.watched(message.watched);
      return;
    case "resume": {
      const resume = resumeWith;
      resumeWith = undefined;
      resume?.(message.answer);
      return;
    }
  }
});

/** Asks the server to record that the run may have had effects; settles with its answer. */
function recordEffects(step: StepRef): Promise<void> {
  return new Promise((resolve, reject) => {
    effectsAnswer = { resolve, reject };
    post({ type: "effects", step });
  });
}
/** Tells the server the run is paused; settles with the answer it resumes the run with. */
function pause(request: PauseRequest, masker: SecretMask): Promise<unknown> {
  const told =
    request.reason === "ask" ? { ...request, prompt: masker.maskText(request.prompt) } : request;
  return new Promise((resolve) => {
    resumeWith = resolve;
    post({ type: "paused", request: told });
  });
}

/** Whether a client asked for a pause since the last step began; asking again is one pause. */
function takePauseAsked(): boolean {
  const asked = pauseAsked;
  pauseAsked = false;
  return asked;
}

// Loading the engine takes a while (a second or more on a busy machine); the server claims a run
// for this host only once it says so, so no run's time limit is spent waiting for it.
post({ type: "ready" });

async function execute(job: RunJob): Promise<void> {
  const control = new AbortController();
  current = control;
  pauseAsked = false;
  resumeWith = undefined;
  const now = () => Date.now() + job.clockOffsetMs;
  // The engine fills it with the run's secret values; the host masks its own reports with it.
  const masker = new SecretMask();
  // Set when the browser's memory watchdog killed it: the run then fails with its message.
  let memoryExceeded: Error | undefined;
  const browser = createRunBrowser({
    executablePath: () => findChromium(job.browser.chromium),
    video: { path: job.browser.videoPath },
    tag: job.browser.tag,
    network: job.network,
    user: job.browser.user,
    memoryLimitBytes: job.browser.memoryLimitBytes,
    ...(job.resume?.browser && { restore: job.resume.browser }),
    ...(job.profile?.state && { storageState: job.profile.state }),
    ...(job.browser.profileFolder && { profileFolder: job.browser.profileFolder }),
    takeWarm: () => {
      const taken = warm;
      warm = undefined;
      return taken ?? Promise.resolve(undefined);
    },
    onProblem: (message) => post({ type: "problem", message: masker.maskText(message) }),
    onLaunched: (ms) => post({ type: "browser_launched", ms }),
    onMemoryExceeded: (error) => {
      memoryExceeded = error;
      control.abort("browser_memory");
    },
  });
  const tracing = job.trace && (await stepTracing(job.trace, job.run.id, masker));
  live = new LiveFrames(
    () => browser.liveFrame(),
    (jpeg) => post({ type: "frame", jpeg }),
  );
  let result: ExecutionResult;
  try {
    result = await executeSkill({
      definition: job.definition,
      inputs: job.inputs,
      secrets: job.secrets,
      masker,
      run: job.run,
      signal: control.signal,
      onEvent: (event) => post({ type: "event", event }),
      onWait: (step, until) =>
        post({ type: "waiting", step, until: new Date(until).toISOString() }),
      onCheckpoint: (checkpoint) =>
        post({
          type: "checkpoint",
          step: checkpoint.step,
          seq: checkpoint.steps_run,
          top_level: checkpoint.path.length === 1,
          json: JSON.stringify(checkpoint),
        }),
      ...(job.resume && { resume: job.resume }),
      beforeEffects: recordEffects,
      pause: (request) => pause(request, masker),
      pauseRequested: takePauseAsked,
      pauseAbandoned: () => {
        resumeWith = undefined;
        post({ type: "pause_abandoned" });
      },
      now,
      browser: browser.access,
      files: createRunFiles({
        dir: job.files.dir,
        existing: job.files.existing,
        maxTotalBytes: job.limits.runFilesBytes,
        now,
        onFile: (file) => post({ type: "file", file }),
      }),
      limits: job.limits,
      network: job.network,
      skills: job.skills,
      ...(tracing && { traceStep: tracing.traceStep }),
    });
  } catch (error) {
    // The engine reports a step's failure as a result; a throw is a fault of the engine itself.
    const message = `internal error: ${masker.maskText(messageOf(error))}`;
    result = { outcome: "failed", data: {}, error: { step: null, message } };
  }
  current = undefined;
  if (result.outcome === "aborted" && memoryExceeded !== undefined) {
    const { data, step } = result;
    const error = { step: step?.label ?? null, message: memoryExceeded.message };
    result = { outcome: "failed", data, error, ...(step && { step }) };
  }
  if (memoryExceeded === undefined) await reportProfile(job, result, browser.access, masker);
  // A parked run's live view shows its last frame until it goes on.
  if (result.outcome === "aborted" && result.reason === "park") live.flush();
  live.stop();
  live = undefined;
  // Its steps' spans are sent before the run's, which the worker ends with the result.
  await tracing?.flush();
  post({ type: "result", result: crossing(result) });
  const { video } = await browser.stop();
  post({ type: "closed", video });
  if (browser.access.started()) warmUp(job);
  // Its folders are removed while the server writes the run's end, and the next run may start.
  await browser.close();
}

/**
 * Launches the browser the next run will take, as this run's was launched, once this run's
 * browser has closed: a process that runs browser runs keeps one ready, and one that never did
 * never starts Chromium. Nothing when the server keeps none (no `warmTag`), or one is ready.
 */
function warmUp(job: RunJob): void {
  const tag = job.browser.warmTag;
  if (tag === undefined || warm !== undefined) return;
  warm = (async () =>
    launchWarmBrowser({
      executablePath: findChromium(job.browser.chromium),
      user: job.browser.user,
      viewport: DEFAULT_VIEWPORT,
      tag,
    }))().catch(() => undefined);
}

/**
 * Sends the browser's storage for the run's profile when its `save` says this ending keeps it:
 * `on_success` a finished run, `always` one that finished, failed or ran out of time (a run
 * cancelled, parked or put back in the queue has not ended here). Nothing when the browser never
 * opened: the profile keeps the version it has.
 */
async function reportProfile(
  job: RunJob,
  result: ExecutionResult,
  access: BrowserAccess,
  masker: SecretMask,
): Promise<void> {
  const profile = job.profile;
  if (profile === undefined || !savesOn(profile.save, result)) return;
  if (job.browser.profileFolder !== undefined) {
    // Its storage holds the machine's own sign-ins, which never leave it (docs/decisions/0068).
    const message =
      "the browser profile was not saved: the browser started on this machine's profile folder (--profile-dir), whose sessions are not sent to the server";
    post({ type: "problem", message });
    return;
  }
  try {
    const snapshot = await access.snapshot();
    if (snapshot === null) return;
    const json = JSON.stringify(profileStateOf(snapshot, profile.state ?? undefined));
    const bytes = Buffer.byteLength(json);
    if (bytes > profile.maxBytes) {
      // Measured here, so that no more than the server keeps crosses to its thread.
      const message = `the browser profile was not saved: the browser's storage is ${bytes} bytes as JSON, more than PROFILE_MAX_BYTES (${profile.maxBytes})`;
      post({ type: "problem", message });
      return;
    }
    post({ type: "profile", json });
  } catch (error) {
    // The message is Playwright's about the browser, never the storage's values.
    const message = `the browser profile was not saved: its storage could not be read: ${masker.maskText(messageOf(error))}`;
    post({ type: "problem", message });
  }
}

function savesOn(save: ProfileSave, result: ExecutionResult): boolean {
  if (save === "never") return false;
  if (result.outcome === "finished") return true;
  if (save === "on_success") return false;
  if (result.outcome === "failed") return true;
  return result.reason === "timeout" || result.reason === "quota";
}

function crossing(result: ExecutionResult): RunHostResult {
  if (result.outcome !== "aborted") return result;
  const reason = typeof result.reason === "string" ? (result.reason as StopKind) : null;
  return { ...result, reason };
}

/**
 * Posts a message; one holding what structured cloning refuses (a function a JSONata expression
 * returned) goes as its JSON, which is what the server would store of it anyway.
 */
function post(message: FromRunHost): void {
  try {
    port.postMessage(message);
  } catch {
    port.postMessage(JSON.parse(JSON.stringify(message)));
  }
}
