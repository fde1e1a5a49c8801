import type { RunSession } from "@skillrun/client";
import { RunState } from "../../components/run-state.js";
import { RelativeTime, RunDuration, useNow } from "../../components/time.js";
import { Link } from "../../router.js";

/** The run's state (announced as it changes), skill, start and duration. */
export function RunFacts(props: { run: RunSession }) {
  const { run } = props;
  // By the second: the duration of a run under way moves.
  const now = useNow(1_000);
  return (
    <dl className="facts">
      <div>
        <dt>State</dt>
        <dd aria-live="polite">
          <RunState state={run.state} />
        </dd>
      </div>
      <div>
        <dt>Skill</dt>
        <dd>
          <Link to={`/skills/${encodeURIComponent(run.skill_id)}`}>{run.skill_id}</Link>
        </dd>
      </div>
      <div>
        <dt>Started</dt>
        <dd>
          <RelativeTime iso={run.start_time} now={now} />
        </dd>
      </div>
      <div>
        <dt>Duration</dt>
        <dd>
          <RunDuration start={run.start_time} end={run.end_time} now={now} />
        </dd>
      </div>
    </dl>
  );
}
