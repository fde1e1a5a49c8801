/** A measurement of memory: how many bytes, and whatever else the measure found. */
export interface Measured {
  bytes: number;
}

export interface OverLimitWatch {
  /** Stops measuring. */
  stop(): void;
}

/**
 * Measures every `everyMs`, one measurement at a time; the first time one gives more than
 * `limitBytes`, stops and hands it to `onExceeded`. A `measure` that rejects three times running
 * is told to `unmeasured` once (a moment's failure is tolerated; for good, the caller must know
 * it is unguarded). The timer alone keeps no process alive. What the browser's memory watchdog
 * and the worker's watch of a run process share.
 */
export function watchOverLimit<T extends Measured>(
  measure: () => Promise<T>,
  { everyMs, limitBytes }: { everyMs: number; limitBytes: number },
  onExceeded: (measured: T) => void,
  unmeasured: (error: unknown) => void,
): OverLimitWatch {
  let stopped = false;
  let measuring = false;
  let failures = 0;
  const timer = setInterval(() => {
    if (measuring || stopped) return;
    measuring = true;
    measure()
      .then((measured) => {
        failures = 0;
        if (stopped || measured.bytes <= limitBytes) return;
        stop();
        onExceeded(measured);
      })
      .catch((error: unknown) => {
        failures += 1;
        if (failures === 3) unmeasured(error);
      })
      .finally(() => {
        measuring = false;
      });
  }, everyMs);
  timer.unref();
  function stop(): void {
    stopped = true;
    clearInterval(timer);
  }
  return { stop };
}
