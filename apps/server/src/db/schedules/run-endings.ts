import { newDeliveryId } from "../../domain/ids.js";
import type { StoredRunState } from "../../domain/run-state-machine.js";
import {
  SCHEDULE_COLUMNS,
  type ScheduleColumns,
  storedScheduleOf,
  toSchedule,
} from "../../schedules/stored-schedule.js";
import { query, type TransactionPlan } from "../direct-sql.js";
import { fromJsonColumn } from "../json-column.js";
import { INSERT_WEBHOOK_DELIVERY, SELECT_ACTIVE_ENDPOINTS } from "../runs/sql/changes.js";

const SELECT_SCHEDULE_OF_RUN = "SELECT schedule_id FROM runs WHERE id = ?";

const CLEAR_FAILURES = `UPDATE schedules SET failures_in_row = 0
  WHERE id = ? AND failures_in_row <> 0`;

const COUNT_FAILURE = `UPDATE schedules SET failures_in_row = failures_in_row + 1
  WHERE id = ?
  RETURNING failures_in_row, pause_after_failures, paused`;

// The version moves: a tick decided before the pause must not fire after it.
const PAUSE_FOR_FAILURES = `UPDATE schedules SET paused = true, paused_reason = 'failures',
    buffered_tick_at = NULL, version = version + 1, updated_at = ?
  WHERE id = ? AND paused = false`;

const DROP_BUFFERED_TICK = `UPDATE schedule_ticks SET outcome = 'skipped', reason = 'paused',
    message = ?, decided_at = ?
  WHERE schedule_id = ? AND outcome = 'buffered'`;

const SELECT_SCHEDULE = `SELECT ${SCHEDULE_COLUMNS} FROM schedules WHERE id = ?`;

/**
 * Counts a run's ending towards its schedule's failures in a row, in the transaction of the
 * ending, after it: `finish` clears the count, `reset` and `timeout` add one, anything else
 * (`cancel`) leaves it. The failure that reaches `pause_after_failures` pauses the schedule and
 * writes a `schedule.paused` delivery per subscribed endpoint (the outbox, as a run's change
 * does), so a pause is told exactly when it committed. `scheduleId` is the run's, when the
 * caller has read it; undefined reads it.
 */
export function* recordScheduledEnding(
  run: { id: string; owner: string; scheduleId?: string | null },
  state: StoredRunState,
  at: Date,
): TransactionPlan<void> {
  if (state !== "finish" && state !== "reset" && state !== "timeout") return;
  let scheduleId = run.scheduleId;
  if (scheduleId === undefined) {
    const { rows } = yield* query<{ schedule_id: string | null }>(SELECT_SCHEDULE_OF_RUN, [run.id]);
    scheduleId = rows[0]?.schedule_id ?? null;
  }
  if (scheduleId === null) return;
  if (state === "finish") {
    yield* query(CLEAR_FAILURES, [scheduleId]);
    return;
  }
  const { rows } = yield* query<{
    failures_in_row: number | string;
    pause_after_failures: number | string | null;
    paused: boolean | number;
  }>(COUNT_FAILURE, [scheduleId]);
  const counted = rows[0];
  // A schedule deleted since its run started counts nothing.
  if (counted === undefined || counted.paused || counted.pause_after_failures === null) {
    return;
  }
  if (Number(counted.failures_in_row) < Number(counted.pause_after_failures)) return;
  const { changes } = yield* query(PAUSE_FOR_FAILURES, [at, scheduleId]);
  if (changes !== 1) return;
  yield* query(DROP_BUFFERED_TICK, [
    "the schedule paused itself after failed runs",
    at,
    scheduleId,
  ]);
  yield* tellPaused(scheduleId, run, at);
}

/** One `schedule.paused` delivery per active endpoint of the owner subscribed to it. */
function* tellPaused(
  scheduleId: string,
  run: { id: string; owner: string },
  at: Date,
): TransactionPlan<void> {
  const { rows: endpoints } = yield* query<{ id: string; events: string }>(
    SELECT_ACTIVE_ENDPOINTS,
    [run.owner],
  );
  const subscribed = endpoints.filter((endpoint) =>
    fromJsonColumn<string[]>(endpoint.events).includes("schedule.paused"),
  );
  if (subscribed.length === 0) return;
  const { rows } = yield* query<ScheduleColumns>(SELECT_SCHEDULE, [scheduleId]);
  const row = rows[0];
  if (row === undefined) return;
  const body = JSON.stringify(toSchedule(storedScheduleOf(row), at));
  for (const endpoint of subscribed) {
    // The delivery's run is the one whose ending paused the schedule.
    yield* query(INSERT_WEBHOOK_DELIVERY, [
      ...[newDeliveryId(), endpoint.id, run.id, "schedule.paused", body],
      ...[at, "pending", at],
    ]);
  }
}
