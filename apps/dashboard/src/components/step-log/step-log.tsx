import type { RunEvent } from "@skillrun/client";
import { memo, type ReactNode } from "react";
import { type LogRow, logRows } from "./log-rows.js";
import { StepRow } from "./step-row.js";

/**
 * The step log as a list: each step with its status in words, its duration, its nesting; a step
 * the video shows is a button that moves the video there. Memoised: a long log need not be
 * rebuilt when the page around it renders again for something else (the run's new state).
 */
export const StepLog = memo(function StepLog(props: {
  events: RunEvent[];
  /** Present once the run has a video: moves it to `offsetMs`. */
  onSeek?: (offsetMs: number, label: string) => void;
  /** What a step's row offers beside it (on its first row: a retried step has one per attempt). */
  stepAction?: (label: string) => ReactNode;
  /** The signed address of a run file a step names (its failure screenshot), once known. */
  fileUrl?: (name: string) => string | undefined;
}) {
  const rows = logRows(props.events);
  if (rows.length === 0) return <p className="muted">No events yet.</p>;
  const offered = new Set<string>();
  return (
    <ol className="step-log">
      {rows.map((row) => {
        const first = isStep(row.status) && !offered.has(row.label);
        if (first) offered.add(row.label);
        return (
          <StepRow
            key={row.key}
            row={row}
            onSeek={props.onSeek}
            action={first ? props.stepAction?.(row.label) : undefined}
            fileUrl={props.fileUrl}
          />
        );
      })}
    </ol>
  );
});

/** Whether a row is a step's (not a log line, nor the run's own event). */
function isStep(status: LogRow["status"]): boolean {
  return status !== "log" && status !== "run";
}
