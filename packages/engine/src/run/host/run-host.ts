import { parentPort } from "node:worker_threads";
import { findChromium } from "../../browser/find-chromium.js";
import { createRunBrowser } from "../../browser/run-browser.js";
import { messageOf } from "../../error-message.js";
import { executeSkill } from "../execute-skill.js";
import type { ExecutionResult } from "../types.js";
import type { FromRunHost, RunHostResult, RunJob, StopKind, ToRunHost } from "./protocol.js";

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

port.on("message", (message: ToRunHost) => {
  if (message.type === "stop") current?.abort(message.reason);
  else void execute(message.job);
});
// Loading the engine takes a while (a second or more on a busy machine); the server claims a run
// for this host only once it says so, so no run's time limit is spent waiting for it.
post({ type: "ready" });

async function execute(job: RunJob): Promise<void> {
  const control = new AbortController();
  current = control;
  // Set when the browser's memory watchdog killed it: the run then fails with its message.
  let memoryExceeded: Error | undefined;
  const browser = createRunBrowser({
    executablePath: () => findChromium(job.browser.chromium),
    video: { path: job.browser.videoPath },
    screenshotDir: job.browser.screenshotDir,
    tag: job.browser.tag,
    network: job.network,
    user: job.browser.user,
    memoryLimitBytes: job.browser.memoryLimitBytes,
    onProblem: (message) => post({ type: "problem", message }),
    onMemoryExceeded: (error) => {
      memoryExceeded = error;
      control.abort("browser_memory");
    },
  });
  let result: ExecutionResult;
  try {
    result = await executeSkill({
      definition: job.definition,
      inputs: job.inputs,
      run: job.run,
      signal: control.signal,
      onEvent: (event) => post({ type: "event", event }),
      now: () => Date.now() + job.clockOffsetMs,
      browser: browser.access,
      limits: job.limits,
      network: job.network,
    });
  } catch (error) {
    // The engine reports a step's failure as a result; a throw is a fault of the engine itself.
    const message = `internal error: ${messageOf(error)}`;
    result = { outcome: "failed", data: {}, error: { step: null, message } };
  }
  current = undefined;
  if (result.outcome === "aborted" && memoryExceeded !== undefined) {
    const { data, step } = result;
    const error = { step: step?.label ?? null, message: memoryExceeded.message };
    result = { outcome: "failed", data, error, ...(step && { step }) };
  }
  post({ type: "result", result: crossing(result) });
  const { video } = await browser.close();
  post({ type: "closed", video });
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
