import { useEffect, useState } from "react";

/** The current time, moving every `everyMs`, so relative times stay true. */
export function useNow(everyMs = 10_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

const relative = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
const absolute = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeStyle: "medium" });

/** "3 minutes ago", from two instants. */
export function relativeTime(at: Date, now: number): string {
  const seconds = Math.round((at.getTime() - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 45) return relative.format(seconds, "second");
  if (abs < 45 * 60) return relative.format(Math.round(seconds / 60), "minute");
  if (abs < 22 * 3600) return relative.format(Math.round(seconds / 3600), "hour");
  return relative.format(Math.round(seconds / 86400), "day");
}

/** "1.4 s", "2 min 5 s", "1 h 3 min". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** An instant in the reader's own time zone: "Jan 1, 2026, 12:05:00 AM". */
export function formatInstant(iso: string): string {
  return absolute.format(new Date(iso));
}

/** A <time> element showing how long ago `iso` was, the exact instant in its title. */
export function RelativeTime(props: { iso: string; now: number }) {
  const at = new Date(props.iso);
  return (
    <time dateTime={props.iso} title={formatInstant(props.iso)}>
      {relativeTime(at, props.now)}
    </time>
  );
}

/** How long a run took, or has taken so far. */
export function RunDuration(props: { start: string; end: string | null | undefined; now: number }) {
  const start = new Date(props.start).getTime();
  const end = props.end ? new Date(props.end).getTime() : props.now;
  const ms = Math.max(0, end - start);
  if (props.end) return <span>{formatDuration(ms)}</span>;
  // Still going: whole seconds, as the clock that moves it ticks by the second.
  return (
    <span>
      {ms < 1000 ? "just started" : `${formatDuration(Math.floor(ms / 1000) * 1000)} so far`}
    </span>
  );
}
