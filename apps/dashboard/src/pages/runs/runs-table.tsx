import { isTerminalState, type RunSession } from "@skillrun/client";
import { CancelButton } from "../../components/cancel-button.js";
import { DataTable } from "../../components/data-table.js";
import { RunState } from "../../components/run-state.js";
import { RelativeTime, RunDuration, useNow } from "../../components/time.js";
import { Link, runPath } from "../../router.js";
import { usePauseReason } from "./use-pause-reason.js";

/** The runs of a page as a table: name and id, state, start, duration, and Cancel until it ends. */
export function RunsTable(props: { runs: RunSession[]; filtered: boolean }) {
  // By the second: the durations of runs under way move.
  const now = useNow(1_000);
  return (
    <DataTable
      className="runs"
      caption={`Runs, newest first${props.filtered ? ", filtered" : ""}`}
      headers={["Run", "State", "Started", "Duration"]}
      actions
    >
      {props.runs.map((run) => (
        <RunRow key={run.id} run={run} now={now} />
      ))}
    </DataTable>
  );
}

function RunRow(props: { run: RunSession; now: number }) {
  const { run, now } = props;
  const pauseReason = usePauseReason(run);
  const queued = run.state === null || run.state === undefined;
  return (
    <tr data-run={run.id}>
      <td>
        <Link to={runPath(run.id)} className="run-name">
          {run.name ?? run.skill_id}
        </Link>
        <span className="sub mono">{run.id}</span>
      </td>
      <td>
        <RunState state={run.state} asking={pauseReason === "ask"} />
      </td>
      <td>
        <RelativeTime iso={run.start_time} now={now} />
      </td>
      <td>
        {/* A queued run has not started: it has no duration yet. */}
        {queued ? "—" : <RunDuration start={run.start_time} end={run.end_time} now={now} />}
      </td>
      <td className="actions">
        {!isTerminalState(run.state) && (
          <CancelButton id={run.id} label={`Cancel ${run.name ?? run.skill_id}`} />
        )}
      </td>
    </tr>
  );
}
