import { placeholders } from "../../direct-sql.js";

/**
 * The claim of the oldest queued run with the sub-select's locking clause: it moves the run to
 * play for the worker (the parameters: its id, the lease's end) and returns it. The outer
 * `state IS NULL` is the state machine's condition in the statement that writes, as every run
 * write has it; on PostgreSQL it is checked again on the row as it is when updated, so a cancel
 * committed in between leaves it alone. The skill's version and its definition are read by the
 * one statement, so they are of the same version whatever a PUT commits meanwhile.
 */
function claimOldestQueued(lock: string): string {
  return `
    UPDATE runs SET state = 'play', worker_id = ?, lease_expires_at = ?, attempts = attempts + 1,
        effects_step = NULL, paused_for = NULL, pause_requested = false, resume_input = NULL,
        skill_version = (SELECT definition_hash FROM skills
          WHERE skills.owner = runs.owner AND skills.id = runs.skill_id)
      WHERE state IS NULL
        AND id = (SELECT id FROM runs WHERE state IS NULL ORDER BY created_at, id LIMIT 1 ${lock})
      RETURNING id, owner, skill_id, inputs, secret_inputs, attempts,
        (SELECT definition FROM skills
          WHERE skills.owner = runs.owner AND skills.id = runs.skill_id) AS definition`;
}

/**
 * SQLite's claim: it runs under SQLite's single write lock, so the row the sub-select finds is
 * the row updated and no other worker can take it in between. The plan then logs it.
 */
export const CLAIM_SQLITE = claimOldestQueued("");

/**
 * PostgreSQL's claim: the same, with its run_claimed event and its change-feed row written by
 * the same statement (the parameters then: the time, the event's message and detail, the time),
 * one round trip (docs/decisions/0010-one-statement-per-write-on-postgresql.md). PostgreSQL lets
 * writers run side by side: the sub-select locks the row it picks and skips rows other workers'
 * claims hold locked, so concurrent claims take different runs instead of queueing behind (or
 * both winning) the same one.
 */
export const CLAIM_POSTGRES = `
  WITH claimed AS (${claimOldestQueued("FOR UPDATE SKIP LOCKED")}),
    logged AS (
      INSERT INTO run_events (run_id, at, type, attempt, message, detail)
        SELECT id, ?, 'run_claimed', attempts, ?, ? FROM claimed),
    changed AS (INSERT INTO run_changes (owner, run_id, at) SELECT owner, id, ? FROM claimed)
  SELECT * FROM claimed`;

/** Extends the lease (its end, then the worker) of `count` runs (their ids) the worker holds. */
export function renewLeases(count: number): string {
  return `UPDATE runs SET lease_expires_at = ?
    WHERE worker_id = ? AND state IN ('play', 'pause') AND id IN (${placeholders(count)})`;
}

/** The owner's skills among `count` ids, with their stored definitions. */
export function selectSkills(count: number): string {
  return `SELECT id, definition FROM skills WHERE owner = ? AND id IN (${placeholders(count)})`;
}

/** Where `count` runs (their ids) stand, as their workers watch them. */
export function selectHeldStates(count: number): string {
  return `SELECT id, state, worker_id, pause_requested FROM runs
    WHERE id IN (${placeholders(count)})`;
}
