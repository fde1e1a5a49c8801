import { messageOf } from "../../api/errors.js";
import { MutationButton } from "../../components/mutation-button.js";
import { useRerun } from "./use-rerun.js";

/**
 * A step's row of an ended run: rerun the run from that step. Named for it ("Rerun from this
 * step: submit"), its text short to leave the row its width; a refusal goes below the row.
 */
export function RerunStepButton(props: { runId: string; step: string }) {
  const rerun = useRerun(props.runId, props.step);
  return (
    <>
      <MutationButton
        mutation={rerun}
        className="secondary step-rerun"
        title="Rerun from this step"
      >
        Rerun<span className="visually-hidden"> from this step: {props.step}</span>
      </MutationButton>
      {rerun.error ? (
        <p className="error step-refusal" role="alert">
          {messageOf(rerun.error)}
        </p>
      ) : null}
    </>
  );
}
