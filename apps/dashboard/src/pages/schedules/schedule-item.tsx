import { useState } from "react";
import { ErrorNote } from "../../components/error-note.js";
import { MutationButton } from "../../components/mutation-button.js";
import { Link, skillPath } from "../../router.js";
import { LastRun } from "./last-run.js";
import { ScheduleTicks } from "./schedule-ticks.js";
import { type Schedule, wallTime } from "./schedule-types.js";
import { useDeleteSchedule, useSetPaused } from "./use-schedule-actions.js";

const PAUSED_BECAUSE = {
  failures: "paused after failed runs",
  requested: "paused",
} as const;

/**
 * One schedule: its skill, cron and zone, whether it is paused, its next runs and its last run;
 * Pause or Resume, its ticks on demand, Delete asked twice.
 */
export function ScheduleItem(props: { schedule: Schedule }) {
  const { schedule } = props;
  const [open, setOpen] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const toggle = useSetPaused(schedule.id, !schedule.paused);
  const remove = useDeleteSchedule(schedule.id);
  const state = schedule.paused ? PAUSED_BECAUSE[schedule.paused_reason ?? "requested"] : "active";
  return (
    <li className="card schedule" data-schedule={schedule.id}>
      <h3>
        <Link to={skillPath(schedule.skill_id)} className="mono">
          {schedule.skill_id}
        </Link>
      </h3>
      <p className="muted">
        <span className="mono">{schedule.cron}</span> in {schedule.timezone} · overlap{" "}
        {schedule.overlap}
        {schedule.catchup !== "0" && ` · catch-up ${schedule.catchup}`}
        {schedule.jitter !== "0" && ` · jitter ${schedule.jitter}`} ·{" "}
        <span className={`schedule-state schedule-${schedule.paused ? "paused" : "active"}`}>
          {state}
        </span>
      </p>
      <dl className="schedule-facts">
        <dt>Next runs{schedule.paused ? " (once resumed)" : ""}</dt>
        <dd>
          {schedule.next_runs.length === 0 ? (
            "none: the cron names no later time"
          ) : (
            <ol className="next-runs">
              {schedule.next_runs.map((at) => (
                <li key={at}>
                  <time dateTime={at} className="mono">
                    {wallTime(at)}
                  </time>
                </li>
              ))}
            </ol>
          )}
        </dd>
        <dt>Last run</dt>
        <dd>
          <LastRun runId={schedule.last_run_id} />
          {schedule.failures_in_row > 0 &&
            ` · ${schedule.failures_in_row} failed in a row${
              schedule.pause_after_failures ? ` (pauses at ${schedule.pause_after_failures})` : ""
            }`}
        </dd>
      </dl>
      <div className="buttons">
        <MutationButton mutation={toggle} className="secondary">
          {schedule.paused ? "Resume" : "Pause"}
        </MutationButton>
        <button
          type="button"
          className="secondary"
          aria-expanded={open}
          onClick={() => setOpen(!open)}
        >
          {open ? "Hide ticks" : "Show ticks"}
        </button>
        {confirming ? (
          <>
            <MutationButton mutation={remove} className="danger">
              Delete the schedule
            </MutationButton>
            <button type="button" className="secondary" onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </>
        ) : (
          <button type="button" className="danger" onClick={() => setConfirming(true)}>
            Delete
          </button>
        )}
      </div>
      <ErrorNote
        error={toggle.error}
        prefix={`The schedule could not be ${schedule.paused ? "resumed" : "paused"}`}
      />
      <ErrorNote error={remove.error} prefix="The schedule could not be deleted" />
      {open && <ScheduleTicks scheduleId={schedule.id} />}
    </li>
  );
}
