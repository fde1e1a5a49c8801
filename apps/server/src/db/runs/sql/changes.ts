import { RUN_COLUMNS } from "../../repositories/run-list-sql.js";

/** A row of the owner's change feed (`GET /v1/run/stream`): owner, run id, time. */
export const INSERT_RUN_CHANGE = "INSERT INTO run_changes (owner, run_id, at) VALUES (?, ?, ?)";

/** The owner's endpoints that are not disabled, with their `events` as stored. */
export const SELECT_ACTIVE_ENDPOINTS =
  "SELECT id, events FROM webhooks WHERE owner = ? AND disabled_at IS NULL";

/** The run as the API shows it, by id: the body of its deliveries. */
export const SELECT_RUN = `SELECT ${RUN_COLUMNS} FROM runs WHERE id = ?`;

/** One pending delivery of the outbox. */
export const INSERT_WEBHOOK_DELIVERY = `INSERT INTO webhook_deliveries (id, webhook_id, run_id,
    event, body, created_at, state, next_attempt_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;

/** Deletes the changes made before a time (the run stream resumes from recent ones only). */
export const DELETE_RUN_CHANGES_BEFORE = "DELETE FROM run_changes WHERE at < ?";
