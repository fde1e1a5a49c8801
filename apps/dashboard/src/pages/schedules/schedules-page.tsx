import { ErrorNote } from "../../components/error-note.js";
import { Loading } from "../../components/loading.js";
import { Link, useTitle } from "../../router.js";
import { ScheduleItem } from "./schedule-item.js";
import { useSchedules } from "./use-schedules.js";

/** The caller's schedules: each with its next runs and last run; pause, resume, ticks, delete. */
export function SchedulesPage() {
  useTitle("Schedules");
  const schedules = useSchedules();
  return (
    <section aria-labelledby="schedules-title">
      <h1 id="schedules-title">Schedules</h1>
      <p className="muted">
        A schedule runs a skill with the same inputs at the times a cron names, in a time zone.
        Create one from a skill's page (<Link to="/skills">the skills</Link>).
      </p>
      <ErrorNote error={schedules.error} prefix="The schedules could not be listed" />
      {!schedules.data && !schedules.error && <Loading what="the schedules" />}
      {schedules.data?.length === 0 && <p className="muted">No schedules yet.</p>}
      <ul className="schedules">
        {schedules.data?.map((schedule) => (
          <ScheduleItem key={schedule.id} schedule={schedule} />
        ))}
      </ul>
    </section>
  );
}
