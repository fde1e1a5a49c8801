import { isTerminalState, type RunSession } from "@skillrun/client";
import { ErrorNote } from "../../components/error-note.js";
import { Section } from "../../components/section.js";
import { StepLog } from "../../components/step-log/step-log.js";
import type { RunEvents } from "../../live/run-events.js";

/** The step log under its heading, saying whether it is live or whole, and why it stopped. */
export function LogPanel(props: {
  run: RunSession;
  log: RunEvents;
  onSeek: ((offsetMs: number, label: string) => void) | undefined;
}) {
  const { log } = props;
  return (
    <Section name="log" title="Step log" className="log-panel">
      <p className="muted" aria-live="polite">
        {log.complete
          ? "The run has ended; this is its whole log."
          : isTerminalState(props.run.state)
            ? ""
            : "Live: steps appear as they run."}
      </p>
      <ErrorNote error={log.error} prefix="The step log stopped" />
      <StepLog events={log.events} onSeek={props.onSeek} />
    </Section>
  );
}
