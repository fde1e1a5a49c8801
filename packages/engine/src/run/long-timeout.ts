/** The longest delay setTimeout honours; past it Node fires the timer at once (after 1 ms). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Calls `callback` after `ms` however long that is: delays past MAX_TIMER_MS are chained timers
 * instead of one that would fire at once. Returns the function that cancels it.
 */
export function setLongTimeout(callback: () => void, ms: number): () => void {
  let timer: NodeJS.Timeout;
  const schedule = (left: number) => {
    timer = setTimeout(
      () => (left > MAX_TIMER_MS ? schedule(left - MAX_TIMER_MS) : callback()),
      Math.min(Math.max(0, left), MAX_TIMER_MS),
    );
  };
  schedule(ms);
  return () => clearTimeout(timer);
}
