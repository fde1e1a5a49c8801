import { isTerminalState, type RunSession } from "@skillrun/client";
import { useCallback, useRef } from "react";
import { ErrorNote } from "../../components/error-note.js";
import { Section } from "../../components/section.js";
import { StepLog } from "../../components/step-log/step-log.js";
import { useFileUrls } from "../../components/step-log/use-file-urls.js";
import type { RunEvents } from "../../live/run-events.js";
import { RerunStepButton } from "./rerun-step-button.js";
import { useFollowLog } from "./use-follow-log.js";

/**
 * The step log under its heading, saying whether it is live (or parked) or whole, and why it
 * stopped; once the run has ended, each step offers to rerun the run from it.
 */
export function LogPanel(props: {
  run: RunSession;
  log: RunEvents;
  /** The run is parked: no step runs until a worker takes it again. */
  parked: boolean;
  onSeek: ((offsetMs: number, label: string) => void) | undefined;
}) {
  const { log, run } = props;
  // The same function from render to render, so the memoised log is not rebuilt for it.
  const rerunFrom = useCallback(
    (label: string) => <RerunStepButton runId={run.id} step={label} />,
    [run.id],
  );
  const fileUrl = useFileUrls(run.id, log.events);
  const ended = isTerminalState(run.state);
  // A live log follows its newest step, unless the reader scrolled up to read an older one.
  // A log read whole at once is not followed; one seen live is, up to its last row.
  const around = useRef<HTMLDivElement>(null);
  // The run whose log was seen live (the panel stays when the page moves to another run).
  const seenLive = useRef<string | null>(null);
  if (!log.complete && !ended && log.events.length > 0) seenLive.current = run.id;
  useFollowLog(around, log.events.length, seenLive.current === run.id);
  return (
    <Section name="log" title="Step log" className="log-panel">
      <p className="muted" aria-live="polite">
        {log.complete
          ? "The run has ended; this is its whole log."
          : ended
            ? ""
            : props.parked
              ? "Live: the run is parked; its steps appear here once it goes on."
              : "Live: steps appear as they run."}
      </p>
      <ErrorNote error={log.error} prefix="The step log stopped" />
      <div ref={around}>
        <StepLog
          events={log.events}
          onSeek={props.onSeek}
          stepAction={ended ? rerunFrom : undefined}
          fileUrl={fileUrl}
        />
      </div>
    </Section>
  );
}
