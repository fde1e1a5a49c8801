import type { RunSession } from "@skillrun/client";
import { Fact } from "../../components/fact.js";
import { RunState } from "../../components/run-state.js";
import { RelativeTime, RunDuration, useNow } from "../../components/time.js";
import { waitingText } from "../../components/waiting-for.js";
import { Link, skillPath } from "../../router.js";
import type { Parked } from "./parked.js";
import { ParkedNote } from "./parked-note.js";
import type { Pause } from "./pause.js";

/**
 * The run's state (announced as it changes; a pause at an `ask` in the words of what it waits
 * for, and whether it is parked), skill, start, and duration (what it waits for while queued).
 */
export function RunFacts(props: { run: RunSession; pause: Pause | null; parked: Parked | null }) {
  const { run } = props;
  // By the second: the duration of a run under way moves.
  const now = useNow(1_000);
  return (
    <dl className="facts">
      <Fact term="State" aria-live="polite">
        <RunState state={run.state} asking={props.pause?.reason === "ask"} />
        {props.parked && <ParkedNote parked={props.parked} state={run.state} now={now} />}
      </Fact>
      <Fact term="Skill">
        <Link to={skillPath(run.skill_id)}>{run.skill_id}</Link>
      </Fact>
      <Fact term="Started">
        <RelativeTime iso={run.start_time} now={now} />
      </Fact>
      {/* A queued run has not started: what it waits for instead of a duration. */}
      {run.state === null || run.state === undefined ? (
        <Fact term="Waiting for" data-waiting-for={run.waiting_for ?? undefined}>
          {waitingText(run.waiting_for)}
        </Fact>
      ) : (
        <Fact term="Duration">
          <RunDuration start={run.start_time} end={run.end_time} now={now} />
        </Fact>
      )}
    </dl>
  );
}
