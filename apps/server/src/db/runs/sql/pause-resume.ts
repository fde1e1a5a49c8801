/** A client asks a run in play to pause (run id, owner). */
export const REQUEST_PAUSE = `UPDATE runs SET pause_requested = true
  WHERE id = ? AND owner = ? AND state = 'play'`;

/** A client calls off the pause it asked for, before the worker paused (run id, owner). */
export const CALL_OFF_PAUSE = `UPDATE runs SET pause_requested = false
  WHERE id = ? AND owner = ? AND state = 'play' AND pause_requested = true`;

/**
 * The worker pauses a run it holds in play (why, as JSON; run id, worker id) and returns its
 * owner; a pending request is used up. `requested`: only while a client's request stands.
 */
export function pauseHeldRun(requested: boolean): string {
  return `UPDATE runs SET state = 'pause', paused_for = ?, pause_requested = false,
      resume_input = NULL
    WHERE id = ? AND worker_id = ? AND state = 'play'${requested ? " AND pause_requested = true" : ""}
    RETURNING owner`;
}

/** Whether the worker still holds the run in play (run id, worker id). */
export const SELECT_HELD_IN_PLAY = `SELECT id FROM runs
  WHERE id = ? AND worker_id = ? AND state = 'play'`;

/**
 * The worker moves a run it paused back to play, without an answer (run id, worker id), and
 * returns its owner.
 */
export const UNPAUSE_HELD_RUN = `UPDATE runs SET state = 'play', paused_for = NULL
  WHERE id = ? AND worker_id = ? AND state = 'pause'
  RETURNING owner`;

/**
 * A client resumes a paused run (what it resumed with, as JSON; run id, owner; the pause it
 * checked the answer against, not one that replaced it since). A parked one no longer expires:
 * it waits for a worker to go on with it (docs/decisions/0052-parking.md).
 */
export const RESUME_RUN = `UPDATE runs SET state = 'play', paused_for = NULL, resume_input = ?,
    wake_at = NULL
  WHERE id = ? AND owner = ? AND state = 'pause' AND paused_for = ?
  RETURNING parked_at`;

/** What a client resumed a run the worker holds with (run id, worker id), if it is there. */
export const SELECT_RESUME_INPUT = `SELECT resume_input FROM runs
  WHERE id = ? AND worker_id = ? AND state = 'play' AND resume_input IS NOT NULL`;

/** Takes the resume input it read (run id, worker id, the input), so it is read once. */
export const TAKE_RESUME_INPUT = `UPDATE runs SET resume_input = NULL
  WHERE id = ? AND worker_id = ? AND state = 'play' AND resume_input = ?`;
