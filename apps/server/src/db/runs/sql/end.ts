import { EVENT_COLUMNS, TYPED_EVENT_PLACEHOLDERS } from "./events.js";

/**
 * Ends a run the worker holds (state, end time, data, run id, worker id, then the parameters of
 * `sources`, the state machine's allowed sources); an ended run needs its secret inputs no more.
 */
function endHeldRun(sources: string): string {
  return `UPDATE runs SET state = ?, end_time = ?, data = ?, lease_expires_at = NULL,
      secret_inputs = NULL
    WHERE id = ? AND worker_id = ? AND ${sources}`;
}

/**
 * The ending as a plan's first statement: whether the owner has an active endpoint comes with
 * the row, so a run without one costs no read of the endpoints.
 */
export function endHeldRunCountingEndpoints(sources: string): string {
  return `${endHeldRun(sources)}
    RETURNING owner, schedule_id, (SELECT COUNT(*) FROM webhooks
      WHERE webhooks.owner = runs.owner AND disabled_at IS NULL) AS endpoints`;
}

/**
 * PostgreSQL's ending in one statement, for a run whose owner has no active endpoint and that no
 * schedule started (a schedule counts its runs' failures in the plan): the row,
 * `events` events (their values after the ending's), and the change-feed row (run id, time).
 * It ends nothing otherwise: the plan then writes the deliveries and the schedule's count too.
 */
export function endHeldRunAtOnce(sources: string, events: number, checkpoints = 0): string {
  const values = Array.from({ length: events }, (_, i) => `(${i}, ${TYPED_EVENT_PLACEHOLDERS})`);
  const saved = Array.from({ length: checkpoints }, () => `(${TYPED_CHECKPOINT_PLACEHOLDERS})`);
  return `WITH ended AS (
      ${endHeldRun(sources)} AND schedule_id IS NULL AND NOT EXISTS (SELECT 1 FROM webhooks
          WHERE webhooks.owner = runs.owner AND disabled_at IS NULL)
        RETURNING owner),
    logged AS (INSERT INTO run_events (${EVENT_COLUMNS})
      SELECT ${EVENT_COLUMNS} FROM (VALUES ${values.join(", ")})
        AS logged (n, ${EVENT_COLUMNS})
        WHERE EXISTS (SELECT 1 FROM ended) ORDER BY n),
    ${checkpoints === 0 ? "" : `saved AS (${upsertCheckpoints(saved)}), ${dropOlderNested(checkpoints)},`}
    changed AS (INSERT INTO run_changes (owner, run_id, at) SELECT owner, ?, ? FROM ended)
  SELECT owner FROM ended`;
}

/** A checkpoint's values (CHECKPOINT_COLUMNS, `top_level` as 1 or 0), typed for a VALUES list. */
const TYPED_CHECKPOINT_PLACEHOLDERS =
  "?::text, ?::text, ?::integer, (?::integer = 1), ?::text, ?::integer, ?::timestamp(3)";

const CHECKPOINT_COLUMNS = "run_id, step_label, seq, top_level, state, bytes, created_at";

/**
 * The run's checkpoints inside blocks older than the ending's latest (run id, its seq, then the
 * labels of the ending's own, which `saved` writes), as insertCheckpoints drops them.
 */
function dropOlderNested(checkpoints: number): string {
  return `dropped AS (DELETE FROM run_checkpoints
      WHERE run_id = ?::text AND top_level = false AND seq < ?::integer
        AND step_label NOT IN (${Array.from({ length: checkpoints }, () => "?::text").join(", ")})
        AND EXISTS (SELECT 1 FROM ended))`;
}

/** The ending's checkpoints (none with the same label), written only when the run ended. */
function upsertCheckpoints(values: string[]): string {
  return `INSERT INTO run_checkpoints (${CHECKPOINT_COLUMNS})
      SELECT ${CHECKPOINT_COLUMNS} FROM (VALUES ${values.join(", ")})
        AS saved (${CHECKPOINT_COLUMNS})
        WHERE EXISTS (SELECT 1 FROM ended)
      ON CONFLICT (run_id, step_label) DO UPDATE SET seq = excluded.seq,
        top_level = excluded.top_level, state = excluded.state, bytes = excluded.bytes,
        created_at = excluded.created_at`;
}
