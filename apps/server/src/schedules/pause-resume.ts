import type { ScheduleChange } from "../db/repositories/schedules.js";
import type { ScheduleCron } from "./schedule-cron.js";
import { cronOf, type StoredSchedule } from "./stored-schedule.js";

/** The first tick of `cron` after `now` and when it fires, its jitter drawn with `random`. */
export function firstTick(
  cron: ScheduleCron,
  jitterMs: number,
  now: Date,
  random: () => number = Math.random,
): { nextTickAt: Date | null; fireAt: Date | null } {
  const next = cron.nextAfter(now.getTime());
  if (next === null) return { nextTickAt: null, fireAt: null };
  return { nextTickAt: new Date(next), fireAt: new Date(next + Math.floor(random() * jitterMs)) };
}

/** Pausing at a client's request: no tick fires, and a buffered one is dropped. */
export const PAUSE: ScheduleChange = {
  paused: true,
  pausedReason: "requested",
  bufferedTickAt: null,
};

/**
 * Resuming: the next tick counts from now (those that passed while paused are not fired), and
 * failures in a row are counted afresh.
 */
export function resumeChange(
  schedule: StoredSchedule,
  now: Date,
  random?: () => number,
): ScheduleChange {
  return {
    paused: false,
    pausedReason: null,
    failuresInRow: 0,
    ...firstTick(cronOf(schedule), schedule.jitterMs, now, random),
  };
}
