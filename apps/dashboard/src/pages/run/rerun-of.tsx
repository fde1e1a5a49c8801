import type { RunSession } from "@skillrun/client";
import { Link, runPath } from "../../router.js";

/** What a rerun reruns: the original run, linked, and the step it started at. */
export function RerunOf(props: { of: NonNullable<RunSession["rerun_of"]> }) {
  const { of } = props;
  return (
    <p className="rerun-of">
      Rerun of{" "}
      <Link to={runPath(of.run_id)} className="mono">
        {of.run_id}
      </Link>{" "}
      from step <span className="step-name">{of.step}</span>
    </p>
  );
}
