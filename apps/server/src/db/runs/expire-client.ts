import { sourcesOf } from "../../domain/run-state-machine.js";
import type { DirectSql } from "../direct-sql.js";
import { type TimingOutRow, timeOutEach } from "./time-out.js";

// A client run's time limit counts while it waits for an agent (DESIGN.md, "Runs on the user's
// machine"): one no agent took within it ends as a run past its limit does.

/** Queued client runs past their time limit, at most 100 (now). */
const SELECT_EXPIRED = `SELECT id, owner, data FROM runs
  WHERE state IS NULL AND queued_until IS NOT NULL AND queued_until <= ? LIMIT 100`;

// A queued run may end in timeout (the state machine says so; checked at load).
if (!sourcesOf("timeout").includes(null)) throw new Error("a queued run could not time out");

const EXPIRE_QUEUED = `UPDATE runs SET state = 'timeout', end_time = ?, data = ?,
    secret_inputs = NULL
  WHERE id = ? AND state IS NULL AND queued_until IS NOT NULL AND queued_until <= ?`;

/**
 * Ends in `timeout` the queued client runs no agent took within their time limit; returns how
 * many.
 */
export async function expireWaitingClientRuns(direct: DirectSql, now: Date): Promise<number> {
  const rows = await direct.all<TimingOutRow>(SELECT_EXPIRED, [now]);
  const message =
    "no agent took the run within its time limit; it waited for an agent since it started";
  return timeOutEach(direct, rows, now, () => ({
    sql: EXPIRE_QUEUED,
    params: [now],
    error: { step: null, message },
  }));
}
