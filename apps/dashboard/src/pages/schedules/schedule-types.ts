import type { components } from "@skillrun/client";

/** A schedule of the caller's, as `GET /v1/schedule/list` gives it (with its next five times). */
export type Schedule = components["schemas"]["Schedule"];
/** One time a schedule was due, and the run it started or why none. */
export type ScheduleTick = components["schemas"]["ScheduleTick"];
/** What a tick does while the schedule's last run has not ended. */
export type ScheduleOverlap = components["schemas"]["ScheduleOverlap"];

/** The cached list of schedules, read again after one is created, paused, resumed or deleted. */
export const SCHEDULES_KEY = ["schedules"] as const;

/** The cached ticks of one schedule. */
export function ticksKey(scheduleId: string) {
  return ["schedule-ticks", scheduleId] as const;
}

/**
 * A time as the API gives it, in the schedule's zone with its offset
 * (`2026-11-30T07:00:00.000+01:00`), as that zone's wall clock reads it: `2026-11-30 07:00 +01:00`.
 * The schedule's own zone, not the reader's: the cron names times in it.
 */
export function wallTime(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2})?(?:\.\d+)?(Z|[+-]\d{2}:\d{2})$/.exec(
    iso,
  );
  if (!match) return iso;
  const [, date, minutes, seconds, offset] = match;
  const time = seconds && seconds !== ":00" ? `${minutes}${seconds}` : minutes;
  return `${date} ${time} ${offset === "Z" ? "+00:00" : offset}`;
}
