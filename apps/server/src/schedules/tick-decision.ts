import type { ScheduleCron } from "./schedule-cron.js";
import { formatInZone } from "./zoned-time.js";

/**
 * How late a tick may fire and still count as on time, whatever `catchup` says: a round of the
 * scheduler that a busy process starts a few seconds late must not drop it. Past it (all servers
 * were down, or stopped), only `catchup` lets a missed tick fire.
 */
export const ON_TIME_GRACE_MS = 30_000;

/** What a schedule's due tick comes to, decided at `now`. */
export interface TickDecision {
  /** The tick decided: the latest the cron named at or before now. */
  tickAt: number;
  /** fire: start its run (overlap allowing); missed: start none. */
  action: "fire" | "missed";
  /** Ticks before it that passed without being fired (after downtime); with their span. */
  missedBefore: { from: number; count: number } | null;
  /** The tick after it and when that fires (its jitter added); null when the cron names none. */
  next: { tickAt: number; fireAt: number } | null;
}

/**
 * The decision for a schedule whose tick `nextTickAt` fired at `fireAt` is due by `now`. After
 * downtime at most the latest missed tick fires, and only when it is at most `catchupMs` (at
 * least ON_TIME_GRACE_MS) old; the ticks it passes over are missed. The next tick's jitter is
 * drawn now, with `random` (0 ≤ r < 1), and kept with it, so every server fires it alike.
 */
export function decideTick(
  schedule: { nextTickAt: number; fireAt: number; catchupMs: number; jitterMs: number },
  cron: ScheduleCron,
  now: number,
  random: () => number,
): TickDecision {
  const latest = cron.latestAtOrBefore(now);
  const tickAt = latest === null || latest < schedule.nextTickAt ? schedule.nextTickAt : latest;
  // The due tick keeps its drawn jitter; a later one, found after downtime, is late from its time.
  const lateness = now - (tickAt === schedule.nextTickAt ? schedule.fireAt : tickAt);
  const window = Math.max(schedule.catchupMs, ON_TIME_GRACE_MS);
  let missedBefore: TickDecision["missedBefore"] = null;
  if (tickAt > schedule.nextTickAt) {
    missedBefore = {
      from: schedule.nextTickAt,
      count: countBetween(cron, schedule.nextTickAt, tickAt),
    };
  }
  const following = cron.nextAfter(tickAt);
  return {
    tickAt,
    action: lateness <= window ? "fire" : "missed",
    missedBefore,
    next:
      following === null
        ? null
        : { tickAt: following, fireAt: following + Math.floor(random() * schedule.jitterMs) },
  };
}

/** How many ticks there are from `from` (included) to `to` (excluded), counted up to 1,000. */
function countBetween(cron: ScheduleCron, from: number, to: number): number {
  let count = 1;
  for (let at = cron.nextAfter(from); at !== null && at < to && count < 1000; ) {
    count += 1;
    at = cron.nextAfter(at);
  }
  return count;
}

/** The message of a tick that passed over `missed` ticks (their first's time in the zone). */
export function missedMessage(zone: string, missed: { from: number; count: number }): string {
  const count = missed.count >= 1000 ? "1,000 or more" : String(missed.count);
  return `${count} earlier tick${missed.count === 1 ? "" : "s"}, from ${formatInZone(zone, missed.from)}, passed while no server fired ticks`;
}
