import { Cron } from "croner";
import { formatInZone, instantOf, offsetAt } from "./zoned-time.js";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * How many ticks a step through wall-clock times may pass before giving up: a repeated or skipped
 * hour is passed tick by tick, and an hour (two in a few zones) of a cron firing every second is
 * 3,600 (7,200) of them.
 */
const MAX_STEPS = 10_000;

/** How many ticks the shortest interval of a cron is measured over (see shortestIntervalMs). */
const INTERVAL_SAMPLE = 500;

/**
 * A cron read on the wall clock of an IANA time zone. croner matches the pattern (5 fields, or 6
 * with seconds first) on the wall clock; the mapping of a wall time to an instant is ours
 * (zoned-time.ts), because schedules treat every cron alike across DST changes: a time the zone
 * skips fires at the first valid time after the gap, a time it repeats fires once, at its first
 * occurrence, and times that land on one instant fire once. croner's own zone handling runs a
 * cron with a wildcard, step, range or list on both occurrences of a repeated hour and skips it
 * in a gap (docs/decisions/0053-schedules.md).
 */
export class ScheduleCron {
  private constructor(
    /** The pattern matched on wall-clock time kept as UTC milliseconds. */
    private readonly wall: Cron,
    readonly zone: string,
  ) {}

  /** The cron in `zone` (a canonical zone name), or why `pattern` is not one. */
  static parse(pattern: string, zone: string): ScheduleCron | { problem: string } {
    const fields = pattern.trim().split(/\s+/);
    if (fields.length !== 5 && fields.length !== 6) {
      return {
        problem: `a cron has 5 fields (minute hour day-of-month month day-of-week) or 6 (second first); this one has ${fields.length}`,
      };
    }
    try {
      const wall = new Cron(fields.join(" "), { utcOffset: 0, mode: "5-or-6-parts", paused: true });
      return new ScheduleCron(wall, zone);
    } catch (error) {
      return { problem: `not a cron: ${(error as Error).message.replace(/^CronPattern: /, "")}` };
    }
  }

  /** The first tick strictly after `after` (epoch ms); null when the cron names none. */
  nextAfter(after: number): number | null {
    // Wall times up to `after` in the zone's smallest offset around it all map to `after` or
    // earlier; the instants of later ones never decrease, so the first past `after` is the tick.
    let cursor = after + Math.min(...this.offsetsAround(after));
    for (let step = 0; step < MAX_STEPS; step++) {
      const next = this.wall.nextRun(new Date(cursor));
      if (next === null) return null;
      const instant = instantOf(this.zone, next.getTime());
      if (instant > after) return instant;
      cursor = next.getTime();
    }
    return null;
  }

  /** The latest tick at or before `at` (epoch ms); null when none is found. */
  latestAtOrBefore(at: number): number | null {
    // Wall times after `at` in the zone's largest offset around it all map after `at`; stepping
    // back from there, the first whose instant is not after `at` is the latest tick.
    let limit = at + Math.max(...this.offsetsAround(at));
    for (let step = 0; step < MAX_STEPS; step++) {
      // croner counts a run earlier in the reference's second: 1 ms past `limit` includes it.
      const [previous] = this.wall.previousRuns(1, new Date(limit + 1));
      if (previous === undefined) return null;
      const instant = instantOf(this.zone, previous.getTime());
      if (instant <= at) return instant;
      limit = previous.getTime() - 1;
    }
    return null;
  }

  /** The next `count` ticks after `after`, in the zone with their offsets (next_runs). */
  nextFormatted(after: number, count = 5): string[] {
    const times: string[] = [];
    let from = after;
    while (times.length < count) {
      const next = this.nextAfter(from);
      if (next === null) break;
      times.push(formatInZone(this.zone, next));
      from = next;
    }
    return times;
  }

  /**
   * The shortest interval (ms) between consecutive wall-clock times of the cron over its next
   * INTERVAL_SAMPLE ticks from `from`; null when it names fewer than two. A cron's fields combine
   * as a product, so the closest pairs of its seconds, minutes and hours come round within the
   * first few days it fires; a DST change that brings two ticks closer once a year is not
   * counted, nor is a gap only a calendar quirk beyond the sample makes (the 29th of February).
   */
  shortestIntervalMs(from: number): number | null {
    const ticks = this.wall.nextRuns(INTERVAL_SAMPLE, new Date(from));
    let shortest: number | null = null;
    for (let i = 1; i < ticks.length; i++) {
      const gap = (ticks[i] as Date).getTime() - (ticks[i - 1] as Date).getTime();
      if (shortest === null || gap < shortest) shortest = gap;
    }
    return shortest;
  }

  /** The zone's offsets a day either side of `instant`, and at it. */
  private offsetsAround(instant: number): number[] {
    return [-DAY_MS, 0, DAY_MS].map((shift) => offsetAt(this.zone, instant + shift));
  }
}
