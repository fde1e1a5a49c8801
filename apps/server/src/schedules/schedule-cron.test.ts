import { describe, expect, it } from "vitest";
import { ScheduleCron } from "./schedule-cron.js";
import { canonicalZone, formatInZone } from "./zoned-time.js";

function cron(pattern: string, zone = "Europe/Berlin"): ScheduleCron {
  const parsed = ScheduleCron.parse(pattern, zone);
  if (!(parsed instanceof ScheduleCron)) throw new Error(parsed.problem);
  return parsed;
}

/** The next `count` ticks after `from` (UTC text), as the zone shows them. */
function next(c: ScheduleCron, from: string, count: number): string[] {
  return c.nextFormatted(Date.parse(from), count);
}

// Berlin, 2026: clocks go from 02:00 CET to 03:00 CEST on 29 March (01:00 UTC), and from 03:00
// CEST back to 02:00 CET on 25 October (01:00 UTC).
describe("a cron in Europe/Berlin across DST", () => {
  it("fires a time the spring change skips at the first valid time after it, once", () => {
    expect(next(cron("30 2 * * *"), "2026-03-27T12:00:00Z", 3)).toEqual([
      "2026-03-28T02:30:00.000+01:00",
      "2026-03-29T03:00:00.000+02:00",
      "2026-03-30T02:30:00.000+02:00",
    ]);
    // Every quarter hour: the skipped hour's four ticks and 03:00 land on one instant.
    expect(next(cron("*/15 * * * *"), "2026-03-29T00:30:00Z", 4)).toEqual([
      "2026-03-29T01:45:00.000+01:00",
      "2026-03-29T03:00:00.000+02:00",
      "2026-03-29T03:15:00.000+02:00",
      "2026-03-29T03:30:00.000+02:00",
    ]);
  });

  it("fires a time the autumn change repeats once, at its first occurrence", () => {
    expect(next(cron("30 2 * * *"), "2026-10-24T12:00:00Z", 2)).toEqual([
      "2026-10-25T02:30:00.000+02:00",
      "2026-10-26T02:30:00.000+01:00",
    ]);
    expect(next(cron("*/30 * * * *"), "2026-10-24T23:45:00Z", 5)).toEqual([
      "2026-10-25T02:00:00.000+02:00",
      "2026-10-25T02:30:00.000+02:00",
      "2026-10-25T03:00:00.000+01:00",
      "2026-10-25T03:30:00.000+01:00",
      "2026-10-25T04:00:00.000+01:00",
    ]);
    // Asked during the second pass through 02:xx, the next tick is 03:00 CET, none repeated.
    expect(next(cron("*/15 * * * *"), "2026-10-25T01:10:00Z", 1)).toEqual([
      "2026-10-25T03:00:00.000+01:00",
    ]);
  });

  it("finds the latest tick at or before a time, in the repeated hour too", () => {
    const quarter = cron("*/15 * * * *");
    // 02:10 CET, in the second pass: the latest tick is 02:45 CEST of the first.
    const latest = quarter.latestAtOrBefore(Date.parse("2026-10-25T01:10:00Z"));
    expect(formatInZone("Europe/Berlin", latest ?? 0)).toBe("2026-10-25T02:45:00.000+02:00");
    const exact = quarter.latestAtOrBefore(Date.parse("2026-03-29T01:00:00Z"));
    expect(formatInZone("Europe/Berlin", exact ?? 0)).toBe("2026-03-29T03:00:00.000+02:00");
  });
});

describe("cron text", () => {
  it("takes 5 fields, or 6 with seconds first", () => {
    expect(next(cron("0 9 * * MON-FRI", "UTC"), "2026-11-27T10:00:00Z", 2)).toEqual([
      "2026-11-30T09:00:00.000+00:00",
      "2026-12-01T09:00:00.000+00:00",
    ]);
    expect(next(cron("*/20 * * * * *", "UTC"), "2026-11-27T10:00:00Z", 2)).toEqual([
      "2026-11-27T10:00:20.000+00:00",
      "2026-11-27T10:00:40.000+00:00",
    ]);
  });

  it("refuses other field counts and bad fields, saying why", () => {
    expect(ScheduleCron.parse("@daily", "UTC")).toEqual({
      problem:
        "a cron has 5 fields (minute hour day-of-month month day-of-week) or 6 (second first); this one has 1",
    });
    expect(ScheduleCron.parse("61 * * * *", "UTC")).toEqual({
      problem: "not a cron: Invalid value for minute: 61",
    });
  });

  it("measures the shortest interval between its times", () => {
    expect(cron("*/5 * * * *", "UTC").shortestIntervalMs(0)).toBe(300_000);
    expect(cron("5,55 * * * * *", "UTC").shortestIntervalMs(0)).toBe(10_000);
    expect(cron("0 0,1 * * *", "UTC").shortestIntervalMs(0)).toBe(3_600_000);
    // February 30th never comes.
    expect(cron("0 0 30 2 *", "UTC").shortestIntervalMs(0)).toBeNull();
  });
});

describe("time zone names", () => {
  it("are taken as given, case corrected; offsets and unknown names are not zones", () => {
    expect(canonicalZone("europe/berlin")).toBe("Europe/Berlin");
    expect(canonicalZone("Asia/Kolkata")).toBe("Asia/Kolkata");
    expect(canonicalZone("UTC")).toBe("UTC");
    expect(canonicalZone("Mars/Olympus")).toBeNull();
    expect(canonicalZone("+01:00")).toBeNull();
    expect(canonicalZone("")).toBeNull();
  });
});
