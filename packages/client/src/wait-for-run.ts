import { abortableSleep } from "./abortable-sleep.js";
import type { RunSession, RunSessionState } from "./contract-types.js";
import type { SkillrunClient } from "./create-client.js";
import { WaitTimeoutError } from "./errors.js";
import { responseData } from "./response-data.js";
import { isTerminalState } from "./run-states.js";

export interface WaitForRunOptions {
  /** Give up with a WaitTimeoutError after this many milliseconds (`Infinity`: never). */
  timeoutMs: number;
  /** Stops waiting at once; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** First pause between two reads of the run (default 250 ms); it grows 1.5× per read. */
  intervalMs?: number;
  /** Longest pause between two reads (default 2000 ms). */
  maxIntervalMs?: number;
}

const DEFAULT_INTERVAL_MS = 250;
const DEFAULT_MAX_INTERVAL_MS = 2000;
const GROWTH = 1.5;
// setTimeout fires at once for longer delays, so longer timeouts count as none.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Polls `GET /run/{id}` until the run is terminal and resolves with it. */
export async function waitForRun(
  client: SkillrunClient,
  id: string,
  options: WaitForRunOptions,
): Promise<RunSession> {
  const { timeoutMs, signal } = options;
  let interval = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  const maxInterval = Math.max(options.maxIntervalMs ?? DEFAULT_MAX_INTERVAL_MS, interval);
  if (!(timeoutMs >= 0)) throw new RangeError(`timeoutMs must be >= 0, got ${timeoutMs}`);
  if (!(interval > 0 && Number.isFinite(interval))) {
    throw new RangeError(`intervalMs must be a positive number, got ${interval}`);
  }

  signal?.throwIfAborted();

  let lastState: RunSessionState | null | undefined;
  // One signal ends both the request in flight and the pause: the caller's abort or the deadline.
  const stop = new AbortController();
  const forwardAbort = () => stop.abort(signal?.reason);
  signal?.addEventListener("abort", forwardAbort, { once: true });
  const deadline =
    timeoutMs <= MAX_TIMER_MS
      ? setTimeout(() => stop.abort(new WaitTimeoutError(id, lastState, timeoutMs)), timeoutMs)
      : undefined;

  try {
    for (;;) {
      const run = responseData(
        await client.GET("/run/{id}", { params: { path: { id } }, signal: stop.signal }),
      );
      lastState = run.state;
      if (isTerminalState(run.state)) return run;
      await abortableSleep(interval, stop.signal);
      interval = Math.min(interval * GROWTH, maxInterval);
    }
  } catch (error) {
    // fetch reports an abort in its own words; the reason says why we stopped.
    if (stop.signal.aborted) throw stop.signal.reason;
    throw error;
  } finally {
    clearTimeout(deadline);
    signal?.removeEventListener("abort", forwardAbort);
  }
}
