/**
 * The fence of a worker's write (run id, worker id): the run's row written to itself while the
 * worker holds it. On PostgreSQL its row lock keeps a recovery from slipping in before the rest
 * of the transaction commits.
 */
export const FENCE_HELD_RUN = `UPDATE runs SET worker_id = worker_id
  WHERE id = ? AND worker_id = ? AND state IN ('play', 'pause')`;

/** Replaces the data of a run the worker holds (data, run id, worker id); the fence as well. */
export const SET_HELD_RUN_DATA = `UPDATE runs SET data = ?
  WHERE id = ? AND worker_id = ? AND state IN ('play', 'pause')`;

/** Sets or clears the step with effects under way (label or null, run id): fenced before. */
export const SET_EFFECTS_STEP = "UPDATE runs SET effects_step = ? WHERE id = ?";
