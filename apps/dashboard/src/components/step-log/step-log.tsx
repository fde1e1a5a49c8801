import type { RunEvent } from "@skillrun/client";
import { memo } from "react";
import { logRows } from "./log-rows.js";
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
}) {
  const rows = logRows(props.events);
  if (rows.length === 0) return <p className="muted">No events yet.</p>;
  return (
    <ol className="step-log">
      {rows.map((row) => (
        <StepRow key={row.key} row={row} onSeek={props.onSeek} />
      ))}
    </ol>
  );
});
