import { isTerminalState, type RunSession } from "@skillrun/client";
import { messageOf } from "../../api/errors.js";
import { CancelButton } from "../../components/cancel-button.js";
import type { Pause } from "./pause.js";
import { useRunActions } from "./use-run-actions.js";

/**
 * What can be done to the run in its state: cancel it until it ends, pause it while it runs,
 * resume a pause (not an `ask`, which its answer resumes), and always run it again.
 */
export function RunActions(props: { run: RunSession; paused: Pause | null }) {
  const { run } = props;
  const { pause, resume, again, error } = useRunActions(run);
  return (
    <div className="run-actions">
      <div className="buttons">
        {!isTerminalState(run.state) && <CancelButton id={run.id} label="Cancel the run" />}
        {run.state === "play" && (
          <button
            type="button"
            className="secondary"
            disabled={pause.isPending}
            onClick={() => pause.mutate()}
          >
            Pause
          </button>
        )}
        {run.state === "pause" && props.paused?.reason !== "ask" && (
          <button
            type="button"
            className="secondary"
            disabled={resume.isPending}
            onClick={() => resume.mutate()}
          >
            Resume
          </button>
        )}
        <button
          type="button"
          className="secondary"
          disabled={again.isPending}
          onClick={() => again.mutate()}
        >
          Run again
        </button>
      </div>
      {error && (
        <p className="error" role="alert">
          {messageOf(error)}
        </p>
      )}
    </div>
  );
}
