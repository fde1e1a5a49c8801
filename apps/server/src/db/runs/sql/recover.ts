/**
 * Puts a run the worker holds back in the queue (run id, worker id, then the parameters of
 * `sources`) and returns its owner; the claim does not count as an attempt.
 */
export function releaseHeldRun(sources: string): string {
  // The next claim goes on from the run's latest checkpoint, if it has one and its skill says so.
  return `UPDATE runs SET state = NULL, worker_id = NULL, lease_expires_at = NULL, data = NULL,
      attempts = attempts - 1, resume_from = (SELECT step_label FROM run_checkpoints
        WHERE run_checkpoints.run_id = runs.id ORDER BY seq DESC LIMIT 1)
    WHERE id = ? AND worker_id = ? AND ${sources}
    RETURNING owner`;
}

/** The runs in play or pause whose lease ran out before a time, at most 100. */
export const SELECT_LOST_RUNS = `SELECT id, worker_id, attempts, data, lease_expires_at,
    effects_step
  FROM runs WHERE state IN ('play', 'pause') AND lease_expires_at < ? LIMIT 100`;

/** The label of the last step a run began (run id). */
export const SELECT_LAST_STEP = `SELECT step_label FROM run_events
  WHERE run_id = ? AND type = 'step_started' ORDER BY id DESC LIMIT 1`;

/**
 * Re-queues a run whose worker was lost (run id, worker id, the time its lease must have ended
 * by, then the parameters of `sources`), unless it was marked with effects since it was read;
 * returns its owner.
 */
export function requeueLostRun(sources: string): string {
  return `UPDATE runs SET state = NULL, worker_id = NULL, lease_expires_at = NULL, data = NULL
    WHERE id = ? AND worker_id = ? AND lease_expires_at < ? AND effects_step IS NULL
      AND ${sources}
    RETURNING owner`;
}

/**
 * Ends in `reset` a run whose worker was lost (end time, data; run id, worker id, the time its
 * lease must have ended by, then the parameters of `sources`); returns its owner.
 */
export function resetLostRun(sources: string): string {
  return `UPDATE runs SET state = 'reset', end_time = ?, data = ?, lease_expires_at = NULL,
      secret_inputs = NULL
    WHERE id = ? AND worker_id = ? AND lease_expires_at < ? AND ${sources}
    RETURNING owner`;
}
