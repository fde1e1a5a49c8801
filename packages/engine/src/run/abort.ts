// Helpers that make waiting honour an AbortSignal at once.

import { setLongTimeout } from "./long-timeout.js";

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      cancel();
      reject(signal.reason);
    };
    const cancel = setLongTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** A signal that aborts with its parent, or on its own after a time; `dispose` stops the timer. */
export interface TimedSignal {
  signal: AbortSignal;
  /** Whether the time ran out (rather than the parent aborting). */
  timedOut(): boolean;
  dispose(): void;
}

/** Derives a signal from `parent` that also aborts with `reason()` after `ms` (never if undefined). */
export function withTimeout(
  parent: AbortSignal,
  ms: number | undefined,
  reason: () => Error,
): TimedSignal {
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(parent.reason);
  if (parent.aborted) onAbort();
  else parent.addEventListener("abort", onAbort, { once: true });
  const cancel =
    ms === undefined
      ? undefined
      : setLongTimeout(() => {
          timedOut = !controller.signal.aborted;
          controller.abort(reason());
        }, ms);
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    dispose() {
      cancel?.();
      parent.removeEventListener("abort", onAbort);
    },
  };
}

/**
 * Settles as `work` does, or rejects with the signal's reason as soon as it aborts, so a step
 * that ignores its signal still cannot hold up a cancelled run. `work` is left to finish alone.
 */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
