import type { ValidationIssue } from "../domain/errors.js";
import { ScheduleCron } from "./schedule-cron.js";
import { canonicalZone } from "./zoned-time.js";

/** The longest catch-up window: a day, the longest duration a skill may give. */
export const MAX_CATCHUP_MS = 24 * 60 * 60 * 1000;

/** The longest jitter: an hour, and always less than the cron's shortest interval. */
export const MAX_JITTER_MS = 60 * 60 * 1000;

/** When a schedule fires, as a client gives it (the contract has checked each field's form). */
export interface TimingFields {
  cron: string;
  timezone: string;
  catchup: string;
  jitter: string;
}

/** When a schedule fires, as stored. */
export interface ScheduleTiming {
  cron: string;
  /** The zone's canonical name. */
  timezone: string;
  catchupMs: number;
  jitterMs: number;
}

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** Milliseconds of a ScheduleDuration (`0`, `500ms`, `1.5s`, `10m`, `1h`); the contract checked its form. */
export function durationMsOf(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text);
  if (match === null) return 0;
  return Math.round(Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]);
}

/** A stored duration as the API shows it: in its largest whole unit, `0` for none. */
export function durationText(ms: number): string {
  if (ms === 0) return "0";
  for (const unit of ["h", "m", "s"] as const) {
    if (ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  }
  return `${ms}ms`;
}

/**
 * The timing as stored and its cron, or the problems with it, each a 422 at its field: a cron
 * that is not one, names no time to come, or fires more often than `minIntervalMs`
 * (SCHEDULE_MIN_INTERVAL_SECONDS) apart; an unknown time zone; a catch-up over a day; a jitter
 * over an hour or not shorter than the cron's shortest interval.
 */
export function checkTiming(
  fields: TimingFields,
  minIntervalMs: number,
  now: Date,
):
  | { ok: true; timing: ScheduleTiming; cron: ScheduleCron }
  | { ok: false; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const invalid = (field: string, message: string) =>
    issues.push({ loc: ["body", field], msg: `Value error, ${message}`, type: "value_error" });
  const zone = canonicalZone(fields.timezone);
  if (zone === null) {
    invalid(
      "timezone",
      `unknown time zone ${JSON.stringify(fields.timezone)}: give an IANA name such as Europe/Berlin or UTC`,
    );
  }
  const parsed = ScheduleCron.parse(fields.cron, zone ?? "UTC");
  let shortest: number | null = null;
  if (!(parsed instanceof ScheduleCron)) invalid("cron", parsed.problem);
  else {
    shortest = parsed.shortestIntervalMs(now.getTime());
    if (parsed.nextAfter(now.getTime()) === null) {
      invalid("cron", "the cron names no time to come");
    } else if (shortest !== null && shortest < minIntervalMs) {
      invalid(
        "cron",
        `the cron fires ${durationText(shortest)} apart; schedules may fire at most every ${durationText(minIntervalMs)} (SCHEDULE_MIN_INTERVAL_SECONDS)`,
      );
    }
  }
  const catchupMs = durationMsOf(fields.catchup);
  if (catchupMs > MAX_CATCHUP_MS) invalid("catchup", "catchup is at most 24h");
  const jitterMs = durationMsOf(fields.jitter);
  if (jitterMs > MAX_JITTER_MS) invalid("jitter", "jitter is at most 1h");
  else if (jitterMs > 0 && shortest !== null && jitterMs >= shortest) {
    invalid(
      "jitter",
      `jitter must be shorter than the cron's shortest interval (${durationText(shortest)}), so that ticks keep their order`,
    );
  }
  if (issues.length > 0 || !(parsed instanceof ScheduleCron) || zone === null) {
    return { ok: false, issues };
  }
  return {
    ok: true,
    timing: {
      cron: fields.cron.trim().split(/\s+/).join(" "),
      timezone: zone,
      catchupMs,
      jitterMs,
    },
    cron: parsed,
  };
}
