/**
 * Takes a pending delivery for a sender by compare-and-set on its lease (the new lease's end; id;
 * with `leased`, the lease as read: a lost sender's, run out).
 */
export function takeDelivery(leased: boolean): string {
  return `UPDATE webhook_deliveries SET lease_until = ?
    WHERE id = ? AND state = 'pending' AND lease_until ${leased ? "= ?" : "IS NULL"}`;
}

/**
 * Records what an attempt made of a delivery the sender holds (state, next attempt or null; id,
 * the sender's lease); one attempt more.
 */
export const SETTLE_DELIVERY = `UPDATE webhook_deliveries SET state = ?, next_attempt_at = ?,
    lease_until = NULL, attempt_count = attempt_count + 1
  WHERE id = ? AND lease_until = ?`;

/** One attempt of a delivery (delivery id, time, status, latency, response, error). */
export const INSERT_WEBHOOK_ATTEMPT = `INSERT INTO webhook_attempts (delivery_id, at, status,
    latency_ms, response, error)
  VALUES (?, ?, ?, ?, ?, ?)`;

/** Disables an endpoint that answered 410 (time, reason, webhook id). */
export const DISABLE_WEBHOOK = `UPDATE webhooks SET disabled_at = ?, disabled_reason = ?
  WHERE id = ? AND disabled_at IS NULL`;

/** Gives up the pending deliveries of an endpoint (webhook id). */
export const FAIL_PENDING_DELIVERIES = `UPDATE webhook_deliveries SET state = 'failed',
    next_attempt_at = NULL
  WHERE webhook_id = ? AND state = 'pending'`;

/** Makes a delivery pending again, due now, attempts counted afresh (time; id, webhook id). */
export const REDELIVER = `UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = ?,
    attempt_count = 0
  WHERE id = ? AND webhook_id = ?`;

/** Deletes the deliveries written before a time that are no longer pending. */
export const DELETE_SETTLED_DELIVERIES_BEFORE = `DELETE FROM webhook_deliveries
  WHERE created_at < ? AND state IN ('delivered', 'failed')`;
