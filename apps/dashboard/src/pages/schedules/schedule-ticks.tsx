import { DataTable } from "../../components/data-table.js";
import { ErrorNote } from "../../components/error-note.js";
import { Loading } from "../../components/loading.js";
import { RelativeTime, useNow } from "../../components/time.js";
import { Link, runPath } from "../../router.js";
import { type ScheduleTick, wallTime } from "./schedule-types.js";
import { useScheduleTicks } from "./use-schedules.js";

/** A schedule's ticks, newest first: when each was due, and its run or why it started none. */
export function ScheduleTicks(props: { scheduleId: string }) {
  const ticks = useScheduleTicks(props.scheduleId);
  const now = useNow(5_000);
  if (ticks.error) return <ErrorNote error={ticks.error} prefix="The ticks could not be listed" />;
  if (!ticks.data) return <Loading what="ticks" />;
  if (ticks.data.length === 0) return <p className="muted">No tick has been due yet.</p>;
  return (
    <DataTable
      className="plain ticks"
      caption="Ticks, newest first"
      headers={["Due", "Decided", "Outcome", "Run or reason"]}
    >
      {ticks.data.map((tick) => (
        <tr key={`${tick.scheduled_for}-${tick.at}`} data-outcome={tick.outcome}>
          <td className="mono">{wallTime(tick.scheduled_for)}</td>
          <td>
            <RelativeTime iso={tick.at} now={now} />
          </td>
          <td>
            {tick.outcome}
            {tick.manual ? " (triggered)" : ""}
          </td>
          <td>
            <TickResult tick={tick} />
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

function TickResult(props: { tick: ScheduleTick }) {
  const { tick } = props;
  if (tick.run_id) {
    return (
      <Link to={runPath(tick.run_id)} className="mono">
        {tick.run_id.slice(0, 16)}…
      </Link>
    );
  }
  return (
    <>
      {tick.reason ?? "waiting for the last run"}
      {tick.message ? `: ${tick.message}` : ""}
    </>
  );
}
