import type { RunEvent } from "@skillrun/client";
import { kindText, RUN_EVENT_TEXT } from "./event-words.js";
import { videoSpan } from "./video-span.js";

/** One line of the log: a step attempt (its start joined with its end), or a single event. */
export interface LogRow {
  key: string;
  depth: number;
  label: string;
  status: "running" | "done" | "failed" | "skipped" | "log" | "run";
  text: string;
  /** What the step acted on or made, in a few words (its selector, URL, file, a value). */
  detail: string | null;
  /** A run file the step's end names: the screenshot of a failed browser step's page. */
  file: string | null;
  durationMs: number | null;
  /** Where the run's video shows it; null when the video does not (or there is none). */
  offsetMs: number | null;
  /**
   * The video begins at this row (the run's latest claim), and rows above had offsets in an
   * earlier video, which is not shown.
   */
  videoStart: boolean;
}

/**
 * The step log's rows, from its events in order. Only the rows from the run's latest claim on
 * keep their video offset: those above it point into an earlier video, which is not shown
 * (`videoSpan`).
 */
export function logRows(events: RunEvent[]): LogRow[] {
  const span = videoSpan(events);
  const rows: LogRow[] = [];
  // The rows of attempts that started and have not ended yet: their end completes them.
  const open = new Map<string, { row: LogRow; shown: boolean }>();
  for (const [index, event] of events.entries()) {
    const shown = index >= span.from;
    const attemptKey = `${event.step?.label ?? ""}#${event.attempt ?? 1}`;
    if (event.type === "step_finished" || event.type === "step_failed") {
      const started = open.get(attemptKey);
      if (started) {
        open.delete(attemptKey);
        // A row above the video's start stays without an offset, whenever it ended.
        endRow(started.row, event, started.shown);
        continue;
      }
    }
    const row = rowOf(event, shown);
    if (!row) continue;
    if (index === span.from && event.type === "run_claimed") row.videoStart = span.earlier;
    if (event.type === "step_started") open.set(attemptKey, { row, shown });
    rows.push(row);
  }
  return rows;
}

/**
 * The row an event stands for on its own; none for `data_updated`, which the log leaves out.
 * `shown`: the run's video shows the event (it came after the run's latest claim).
 */
function rowOf(event: RunEvent, shown: boolean): LogRow | null {
  const label = event.step?.label ?? "";
  // Blocks and called skills label their steps "outer › inner": one level per ›.
  const depth = label ? label.split(" › ").length - 1 : 0;
  const row = {
    key: `e${event.id}`,
    depth,
    label,
    detail: null,
    file: null,
    durationMs: null,
    offsetMs: shown ? (event.video_offset_ms ?? null) : null,
    videoStart: false,
  };
  switch (event.type) {
    case "step_started":
      return { ...row, status: "running", text: kindText(event.step) };
    case "step_finished":
    case "step_failed":
      return { ...row, ...endOf(event), durationMs: event.duration_ms };
    case "step_skipped":
      return { ...row, status: "skipped", text: event.message ?? "its condition was false" };
    case "log":
      return {
        ...row,
        depth: depth + 1,
        label: event.level ?? "log",
        status: "log",
        text: event.message ?? "",
      };
    case "data_updated":
      return null;
    default:
      return {
        ...row,
        depth: 0,
        // A type newer than this dashboard still shows, by its name.
        label: RUN_EVENT_TEXT[event.type] ?? event.type,
        status: "run",
        text: event.message ?? "",
        durationMs: event.duration_ms,
        offsetMs: null,
      };
  }
}

/**
 * How a step's end reads: done with its kind, or failed with its message; with what the step
 * said it acted on, and the file its failure left.
 */
function endOf(event: RunEvent): Pick<LogRow, "status" | "text" | "detail" | "file"> {
  // A `log` step's detail is its message, which its own row under the step already shows.
  const detail = event.step?.kind === "log" ? null : (event.detail ?? null);
  const said = { detail, file: event.file ?? null };
  if (event.type === "step_failed") {
    return { status: "failed", text: event.message ?? "failed", ...said };
  }
  return { status: "done", text: kindText(event.step), ...said };
}

/**
 * Completes the row of a started attempt with its end; the start's video offset stays, and the
 * end's is taken only when the start had none and the video shows the row (`shown`).
 */
function endRow(row: LogRow, event: RunEvent, shown: boolean): void {
  Object.assign(row, endOf(event));
  row.durationMs = event.duration_ms;
  if (shown) row.offsetMs ??= event.video_offset_ms ?? null;
}
