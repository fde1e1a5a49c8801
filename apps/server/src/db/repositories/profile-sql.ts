/** What a profile's description is read from: everything but its sealed state. */
export const PROFILE_COLUMNS =
  "name, version, bytes, summary, saved_by_run, created_at, updated_at";

/** The owner's profiles (the parameter), by name. */
export const LIST_PROFILES = `SELECT ${PROFILE_COLUMNS} FROM profiles WHERE owner = ? ORDER BY name`;

/** One profile of the owner's (owner, name). */
export const SELECT_PROFILE = `SELECT ${PROFILE_COLUMNS} FROM profiles WHERE owner = ? AND name = ?`;

/** A profile's current version and sealed state (owner, name). */
export const SELECT_PROFILE_STATE = `SELECT version, state FROM profiles
  WHERE owner = ? AND name = ?`;

/** How many profiles the owner keeps, and whether one has the name (owner, owner, name). */
export const COUNT_PROFILES = `SELECT (SELECT COUNT(*) FROM profiles WHERE owner = ?) AS kept,
    (SELECT COUNT(*) FROM profiles WHERE owner = ? AND name = ?) AS named`;

/**
 * Writes a profile's next version (owner, name, sealed state, bytes, summary, the run that
 * saved it or null, now, now): version 1 for a new name, one more than before otherwise, its
 * created_at kept. One statement, so two writes of one name each get a version of their own.
 */
export const UPSERT_PROFILE = `INSERT INTO profiles (owner, name, version, state, bytes, summary,
    saved_by_run, created_at, updated_at)
  VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (owner, name) DO UPDATE SET version = profiles.version + 1, state = excluded.state,
    bytes = excluded.bytes, summary = excluded.summary, saved_by_run = excluded.saved_by_run,
    updated_at = excluded.updated_at
  RETURNING ${PROFILE_COLUMNS}`;

/** Deletes an owner's profile (owner, name). */
export const DELETE_PROFILE = "DELETE FROM profiles WHERE owner = ? AND name = ?";

/**
 * The run (id, worker) as its worker still holds it; on PostgreSQL its row stays locked until
 * the save commits, so no cancel or recovery lands between the check and the write (SQLite's
 * transaction holds the write lock from its start).
 */
export function selectHeldRun(postgres: boolean): string {
  return `SELECT id FROM runs WHERE id = ? AND worker_id = ? AND state IN ('play', 'pause')${
    postgres ? " FOR UPDATE" : ""
  }`;
}
