/**
 * When a delivery that did not get a 2xx is tried again: exponential backoff (5 s, doubling, at
 * most 6 h between attempts) with ±20 % jitter, so that the retries of many deliveries to an
 * endpoint that was down do not all arrive at once. 16 attempts span about 24 hours (the 15
 * waits between them: 5 s + 10 s + … + 5.7 h + 6 h + 6 h ≈ 23.4 h before jitter); after the last
 * the delivery is given up (`failed`).
 */
export const MAX_DELIVERY_ATTEMPTS = 16;

const FIRST_DELAY_MS = 5_000;
const MAX_DELAY_MS = 6 * 60 * 60 * 1000;
const JITTER = 0.2;

/**
 * The wait after attempt `attempt` (1-based) failed, or undefined when it was the last.
 * `firstDelayMs` shortens the whole schedule (tests); `random` is in [0, 1).
 */
export function retryDelayMs(
  attempt: number,
  options: { firstDelayMs?: number; random?: () => number } = {},
): number | undefined {
  if (attempt >= MAX_DELIVERY_ATTEMPTS) return undefined;
  const first = options.firstDelayMs ?? FIRST_DELAY_MS;
  // A shortened schedule keeps its shape: the cap shrinks with the first wait.
  const cap = MAX_DELAY_MS * (first / FIRST_DELAY_MS);
  const base = Math.min(first * 2 ** (attempt - 1), cap);
  const random = options.random ?? Math.random;
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}
