import type { RunEvent } from "@skillrun/client";
import { memo } from "react";
import { formatDuration } from "./time.js";

/** One line of the log: a step attempt (its start joined with its end), or a single event. */
interface Row {
  key: string;
  depth: number;
  label: string;
  status: "running" | "done" | "failed" | "skipped" | "log" | "run";
  text: string;
  durationMs: number | null;
  offsetMs: number | null;
}

const RUN_TEXT: Partial<Record<RunEvent["type"], string>> = {
  run_claimed: "Taken by a worker",
  run_started: "Started",
  run_finished: "Finished",
  run_failed: "Failed",
  run_timed_out: "Timed out",
  run_cancelled: "Cancelled",
  run_released: "Put back in the queue",
  run_paused: "Paused",
  run_resumed: "Resumed",
  worker_lost: "Worker lost",
  video_recorded: "Video saved",
};

const STATUS_TEXT: Record<Row["status"], string> = {
  running: "running",
  done: "done",
  failed: "failed",
  skipped: "skipped",
  log: "log",
  run: "",
};

/** The step's kind, unless its label already says it ("step 2 (fill)"). */
function kindText(step: RunEvent["step"]): string {
  if (!step) return "";
  return step.label.endsWith(`(${step.kind})`) ? "" : step.kind;
}

/** The step log's rows, from its events in order. */
export function logRows(events: RunEvent[]): Row[] {
  const rows: Row[] = [];
  const open = new Map<string, Row>();
  for (const event of events) {
    const step = event.step;
    const label = step?.label ?? "";
    // Blocks and called skills label their steps "outer › inner": one level per ›.
    const depth = label ? label.split(" › ").length - 1 : 0;
    const attemptKey = `${label}#${event.attempt ?? 1}`;
    const offset = event.video_offset_ms ?? null;
    switch (event.type) {
      case "step_started": {
        const row: Row = {
          key: `e${event.id}`,
          depth,
          label,
          status: "running",
          text: kindText(step),
          durationMs: null,
          offsetMs: offset,
        };
        open.set(attemptKey, row);
        rows.push(row);
        break;
      }
      case "step_finished":
      case "step_failed": {
        const row = open.get(attemptKey);
        const failed = event.type === "step_failed";
        const text = failed ? (event.message ?? "failed") : kindText(step);
        if (row) {
          row.status = failed ? "failed" : "done";
          row.text = text;
          row.durationMs = event.duration_ms;
          row.offsetMs ??= offset;
          open.delete(attemptKey);
        } else {
          rows.push({
            key: `e${event.id}`,
            depth,
            label,
            status: failed ? "failed" : "done",
            text,
            durationMs: event.duration_ms,
            offsetMs: offset,
          });
        }
        break;
      }
      case "step_skipped":
        rows.push({
          key: `e${event.id}`,
          depth,
          label,
          status: "skipped",
          text: event.message ?? "its condition was false",
          durationMs: null,
          offsetMs: offset,
        });
        break;
      case "log":
        rows.push({
          key: `e${event.id}`,
          depth: depth + 1,
          label: event.level ?? "log",
          status: "log",
          text: event.message ?? "",
          durationMs: null,
          offsetMs: offset,
        });
        break;
      case "data_updated":
        break;
      default:
        rows.push({
          key: `e${event.id}`,
          depth: 0,
          label: RUN_TEXT[event.type] ?? event.type,
          status: "run",
          text: event.message ?? "",
          durationMs: event.duration_ms,
          offsetMs: null,
        });
    }
  }
  return rows;
}

/**
 * The step log as a list: each step with its status in words, its duration, its nesting; a step
 * the video shows is a button that moves the video there.
 */
export const StepLog = memo(function StepLog(props: {
  events: RunEvent[];
  /** Present once the run has a video: moves it to `offsetMs`. */
  onSeek?: (offsetMs: number, label: string) => void;
}) {
  const rows = logRows(props.events);
  if (rows.length === 0) return <p className="muted">No events yet.</p>;
  return (
    <ol className="step-log">
      {rows.map((row) => {
        const seekable =
          props.onSeek !== undefined && row.offsetMs !== null && row.status !== "log";
        const body = (
          <>
            <span className={`step-status status-${row.status}`}>{STATUS_TEXT[row.status]}</span>
            <span className="step-label">{row.label}</span>
            <span className="step-text">{row.text}</span>
            <span className="step-duration">
              {row.durationMs !== null ? formatDuration(row.durationMs) : ""}
            </span>
          </>
        );
        return (
          <li
            key={row.key}
            className={`step-row row-${row.status}`}
            style={{ paddingInlineStart: `${row.depth * 1.25}rem` }}
            data-label={row.label}
          >
            {seekable ? (
              <button
                type="button"
                className="step-seek"
                title="Show this step in the video"
                onClick={() => props.onSeek?.(row.offsetMs ?? 0, row.label)}
              >
                {body}
                <span className="visually-hidden">, show in the video</span>
              </button>
            ) : (
              <div className="step-line">{body}</div>
            )}
          </li>
        );
      })}
    </ol>
  );
});
