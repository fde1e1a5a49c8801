/** A duration as written in a skill: a whole or decimal number and a unit, e.g. `500ms`, `1.5s`. */
export const DURATION_PATTERN = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;

/** How long a skill may run when its definition sets no `timeout`. */
export const DEFAULT_SKILL_TIMEOUT_MS = 10 * 60 * 1000;

/**
 * The longest duration a skill may give (time limit, wait, backoff, step and request timeouts).
 * Part of the format, not a server setting, so a skill valid on one server is valid on every one.
 */
export const MAX_DURATION_MS = 24 * 60 * 60 * 1000;

/** MAX_DURATION_MS as a skill writes it. */
export const MAX_DURATION = "24h";

const UNIT_MS = { ms: 1, s: 1000, m: 60 * 1000, h: 60 * 60 * 1000 } as const;

/** The message for text that is not a duration; shared with schema validation. */
export function notADurationMessage(text: string): string {
  return `${JSON.stringify(text)} is not a duration (expected e.g. 500ms, 2s, 2m)`;
}

/** The message for a duration over MAX_DURATION_MS; shared with import checks. */
export function tooLongMessage(text: string): string {
  return `${JSON.stringify(text)} is longer than ${MAX_DURATION}, the longest duration a skill may give`;
}

/**
 * Milliseconds of a duration such as `2s` (rounded to a whole millisecond) without the maximum
 * applied; undefined when the text is not a duration.
 */
export function durationMs(text: string): number | undefined {
  const match = DURATION_PATTERN.exec(text);
  const amount = match?.[1];
  const unit = match?.[2] as keyof typeof UNIT_MS | undefined;
  if (amount === undefined || unit === undefined) return undefined;
  return Math.round(Number(amount) * UNIT_MS[unit]);
}

/** Converts a duration such as `2s` to milliseconds; throws past MAX_DURATION_MS. */
export function parseDuration(text: string): number {
  const ms = durationMs(text);
  if (ms === undefined) throw new Error(notADurationMessage(text));
  if (ms > MAX_DURATION_MS) throw new Error(tooLongMessage(text));
  return ms;
}
