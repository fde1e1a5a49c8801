import { isTerminalState, type RunSession } from "@skillrun/client";
import { CancelButton } from "../../components/cancel-button.js";
import { ErrorNote } from "../../components/error-note.js";
import { MutationButton } from "../../components/mutation-button.js";
import { failureOf } from "./failure.js";
import type { Pause } from "./pause.js";
import { useRunActions } from "./use-run-actions.js";

/**
 * What can be done to the run in its state: cancel it until it ends, pause it while it runs,
 * resume a pause (not an `ask`, which its answer resumes), rerun it from the step it failed at,
 * and always run it again.
 */
export function RunActions(props: { run: RunSession; paused: Pause | null }) {
  const { run } = props;
  const { pause, resume, again, rerun, error } = useRunActions(run);
  return (
    <div className="run-actions">
      <div className="buttons">
        {!isTerminalState(run.state) && <CancelButton id={run.id} label="Cancel the run" />}
        {run.state === "play" && (
          <MutationButton mutation={pause} className="secondary">
            Pause
          </MutationButton>
        )}
        {run.state === "pause" && props.paused?.reason !== "ask" && (
          <MutationButton mutation={resume} className="secondary">
            Resume
          </MutationButton>
        )}
        {failureOf(run)?.step && (
          <MutationButton mutation={rerun} className="secondary">
            Rerun from the failed step
          </MutationButton>
        )}
        <MutationButton mutation={again} className="secondary">
          Run again
        </MutationButton>
      </div>
      <ErrorNote error={error} />
    </div>
  );
}
