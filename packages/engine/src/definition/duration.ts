/** A duration as written in a skill: a whole or decimal number and a unit, e.g. `500ms`, `1.5s`. */
export const DURATION_PATTERN = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;

/** How long a skill may run when its definition sets no `timeout`. */
export const DEFAULT_SKILL_TIMEOUT_MS = 10 * 60 * 1000;

const UNIT_MS = { ms: 1, s: 1000, m: 60 * 1000, h: 60 * 60 * 1000 } as const;

/** The message for text that is not a duration; shared with schema validation. */
export function notADurationMessage(text: string): string {
  return `${JSON.stringify(text)} is not a duration (expected e.g. 500ms, 2s, 2m)`;
}

/** Converts a duration such as `2s` to milliseconds (rounded to a whole millisecond). */
export function parseDuration(text: string): number {
  const match = DURATION_PATTERN.exec(text);
  const amount = match?.[1];
  const unit = match?.[2] as keyof typeof UNIT_MS | undefined;
  if (amount === undefined || unit === undefined) {
    throw new Error(notADurationMessage(text));
  }
  return Math.round(Number(amount) * UNIT_MS[unit]);
}
