/** Tells every listener of a channel (channel, payload), at the commit of its transaction. */
export const NOTIFY = "SELECT pg_notify(?, ?)";

/**
 * `WITH i0 AS (INSERT …), i1 AS (INSERT …) SELECT pg_notify(…), …`: INSERTs and the
 * notifications of their signals as one statement (the INSERTs' parameters, then a channel and
 * a payload per notification). PostgreSQL executes every INSERT of a WITH whether or not the
 * query reads it, and a statement commits as a whole.
 */
export function insertAndNotify(inserts: readonly string[], notifications: number): string {
  const withs = inserts.map((sql, i) => `i${i} AS (${sql})`).join(", ");
  const notify = Array.from({ length: notifications }, () => "pg_notify(?, ?)");
  return `WITH ${withs} SELECT ${notify.join(", ")}`;
}
