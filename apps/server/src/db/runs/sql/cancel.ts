/**
 * A client cancels a run (end time, run id, owner, then the parameters of `sources`, the state
 * machine's allowed sources); an ended run needs its secret inputs no more.
 */
export function cancelRun(sources: string): string {
  return `UPDATE runs SET state = 'cancel', end_time = ?, lease_expires_at = NULL,
      secret_inputs = NULL, parked_at = NULL, wake_at = NULL
    WHERE id = ? AND owner = ? AND ${sources}`;
}

/** The state of the owner's run (run id, owner). */
export const SELECT_RUN_STATE = "SELECT state FROM runs WHERE id = ? AND owner = ?";

/** Whether a run was cancelled while the worker held it (run id, worker id). */
export const SELECT_CANCELLED_HELD = `SELECT id FROM runs
  WHERE id = ? AND worker_id = ? AND state = 'cancel'`;

/** Where a parked run of the owner waits (run id, owner); no row when it is not parked. */
export const SELECT_PARKED = `SELECT resume_from FROM runs
  WHERE id = ? AND owner = ? AND parked_at IS NOT NULL`;
