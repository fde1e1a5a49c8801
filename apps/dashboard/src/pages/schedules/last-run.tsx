import { useRun } from "../../api/use-run.js";
import { RunState } from "../../components/run-state.js";
import { Link, runPath } from "../../router.js";

/** The run a schedule started last, linked, with its state as the API has it now. */
export function LastRun(props: { runId: string | null }) {
  const run = useRun(props.runId);
  if (props.runId === null) return <>none yet</>;
  return (
    <>
      <Link to={runPath(props.runId)} className="mono">
        {props.runId.slice(0, 16)}…
      </Link>{" "}
      {run.data ? <RunState state={run.data.state} /> : run.error ? "(unreadable)" : null}
    </>
  );
}
