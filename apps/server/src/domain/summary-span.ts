import { RequestInvalid } from "./errors.js";

/** The span `GET /run/summary` counts when no `since` is given. */
export const DEFAULT_SUMMARY_SPAN_MS = 24 * 3_600_000;

/** How far back `since` may go: the counts stay within a week of runs. */
export const MAX_SUMMARY_SPAN_MS = 7 * 24 * 3_600_000;

/**
 * The start of the span a summary counts: `since` (RFC 3339, already checked as a date-time by
 * the validator), or 24 hours before `now`; a 422 at `["query", "since"]` when it is more than 7
 * days back or in the future.
 */
export function summarySince(since: string | undefined, now: Date): Date {
  if (since === undefined) return new Date(now.getTime() - DEFAULT_SUMMARY_SPAN_MS);
  const at = new Date(since);
  const refuse = (msg: string) =>
    new RequestInvalid([
      { loc: ["query", "since"], msg: `Value error, ${msg}`, type: "value_error" },
    ]);
  if (Number.isNaN(at.getTime())) throw refuse("not a date-time");
  if (at.getTime() > now.getTime()) throw refuse("since is in the future");
  if (now.getTime() - at.getTime() > MAX_SUMMARY_SPAN_MS) {
    throw refuse("since goes back more than 7 days");
  }
  return at;
}
