/**
 * Wall-clock time in an IANA time zone, with the Intl API Node carries (its time zone database):
 * what schedules need to read a cron in a zone and to show a time with its offset. A wall time is
 * kept as the epoch milliseconds it would be in UTC, so that plain arithmetic moves it.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

// Formatting is what costs: one formatter per zone, kept (there are a few hundred zones at most).
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/**
 * The zone's name when Node's time zone database knows it, null otherwise: as given, its case
 * corrected (`europe/berlin` gives `Europe/Berlin`). An alias stays as given: ICU would answer
 * `Asia/Calcutta` for `Asia/Kolkata`, which is not what the client wrote. Only names are taken:
 * an offset such as `+01:00`, which Intl also accepts, is not a zone with the rules of a place.
 */
export function canonicalZone(name: string): string | null {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name)) return null;
  try {
    const resolved = new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions()
      .timeZone;
    return resolved.toLowerCase() === name.toLowerCase() ? resolved : name;
  } catch {
    return null;
  }
}

/** The zone's offset from UTC at `instant` (ms): wall clock minus UTC, to the second. */
export function offsetAt(zone: string, instant: number): number {
  const whole = Math.floor(instant / 1000) * 1000;
  const parts: Record<string, number> = {};
  for (const part of formatterOf(zone).formatToParts(new Date(whole))) {
    if (part.type !== "literal") parts[part.type] = Number(part.value);
  }
  const wall = Date.UTC(
    parts.year ?? 1970,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  );
  return wall - whole;
}

/** The wall time at `instant` in the zone. */
export function wallAt(zone: string, instant: number): number {
  return instant + offsetAt(zone, instant);
}

/**
 * The instant a wall time names in the zone. A wall time the zone repeats (the hour a DST change
 * turns back) is its first occurrence; one the zone skips (the hour a DST change leaves out) is
 * the first valid time after the gap: the instant of the change. Zones change their offset at
 * most once within two days, which the two candidates below rely on.
 */
export function instantOf(zone: string, wall: number): number {
  const before = offsetAt(zone, wall - DAY_MS);
  const after = offsetAt(zone, wall + DAY_MS);
  const valid = [...new Set([before, after])]
    .map((offset) => wall - offset)
    .filter((instant) => wallAt(zone, instant) === wall);
  if (valid.length > 0) return Math.min(...valid);
  if (after <= before) return wall - before;
  // In the gap: the change lies between the instant the wall time would be under the new offset
  // (still the old one there) and under the old offset (already the new one).
  let old = wall - after;
  let changed = wall - before;
  while (changed - old > 1) {
    const middle = Math.floor((old + changed) / 2);
    if (offsetAt(zone, middle) === after) changed = middle;
    else old = middle;
  }
  return changed;
}

/**
 * `instant` as RFC 3339 in the zone with its offset and milliseconds, e.g.
 * `2026-03-29T03:00:00.000+02:00` (an offset with seconds, before standard time, is rounded to
 * the minute).
 */
export function formatInZone(zone: string, instant: number): string {
  const minutes = Math.round(offsetAt(zone, instant) / 60_000);
  const wall = new Date(instant + minutes * 60_000).toISOString().slice(0, -1);
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, "0");
  const mm = String(abs % 60).padStart(2, "0");
  return `${wall}${sign}${hh}:${mm}`;
}
