/** The columns of a step log row, in the order of eventValues (record.ts). */
export const EVENT_COLUMNS = `run_id, at, type, step_index, step_id, step_kind, step_label, attempt,
  duration_ms, level, message, detail, video_offset_ms, step_detail, file`;

/** One `?` per column of EVENT_COLUMNS. */
const EVENT_PLACEHOLDERS = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

/**
 * EVENT_PLACEHOLDERS with the columns' types: a VALUES list read by a SELECT does not take them
 * from the table its rows go to (PostgreSQL).
 */
export const TYPED_EVENT_PLACEHOLDERS = `?::text, ?::timestamp(3), ?::text, ?::integer, ?::text,
  ?::text, ?::text, ?::integer, ?::integer, ?::text, ?::text, ?::text, ?::integer, ?::text,
  ?::text`;

/** Appends `count` events to the step log (their values in the order of EVENT_COLUMNS). */
export function insertEvents(count: number): string {
  return `INSERT INTO run_events (${EVENT_COLUMNS})
    VALUES ${Array.from({ length: count }, () => EVENT_PLACEHOLDERS).join(", ")}`;
}

/**
 * Deletes the step logs of up to 500 runs that ended before `?` and still have one: retention
 * repeats it until it deletes nothing. The run itself stays, its data and outcome with it.
 */
/** Checkpoints of runs that ended before a time, 500 runs' at most (docs/decisions/0051-checkpoints.md). */
export const DELETE_CHECKPOINTS_ENDED_BEFORE = `DELETE FROM run_checkpoints WHERE run_id IN (
  SELECT r.id FROM runs r
  WHERE r.end_time < ? AND EXISTS (SELECT 1 FROM run_checkpoints c WHERE c.run_id = r.id)
  LIMIT 500)`;

export const DELETE_STEP_LOGS_ENDED_BEFORE = `DELETE FROM run_events WHERE run_id IN (
  SELECT r.id FROM runs r
  WHERE r.end_time < ? AND EXISTS (SELECT 1 FROM run_events e WHERE e.run_id = r.id)
  LIMIT 500)`;
