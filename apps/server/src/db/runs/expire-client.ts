import { sourcesOf } from "../../domain/run-state-machine.js";
import { type DirectSql, query, type TransactionPlan } from "../direct-sql.js";
import { fromJsonColumn, toJsonColumn } from "../json-column.js";
import { recordScheduledEnding } from "../schedules/run-endings.js";
import { recordRunChange } from "./changes.js";
import { insertEvents } from "./record.js";

// A client run's time limit counts while it waits for an agent (DESIGN.md, "Runs on the user's
// machine"): one no agent took within it ends as a run past its limit does.

/** Queued client runs past their time limit, at most 100 (now). */
const SELECT_EXPIRED = `SELECT id, owner, data, queued_until FROM runs
  WHERE state IS NULL AND queued_until IS NOT NULL AND queued_until <= ? LIMIT 100`;

// A queued run may end in timeout (the state machine says so; checked at load).
if (!sourcesOf("timeout").includes(null)) throw new Error("a queued run could not time out");

const EXPIRE_QUEUED = `UPDATE runs SET state = 'timeout', end_time = ?, data = ?,
    secret_inputs = NULL
  WHERE id = ? AND state IS NULL AND queued_until IS NOT NULL AND queued_until <= ?`;

interface ExpiredRow {
  id: string;
  owner: string;
  data: string | null;
  queued_until: Date | string;
}

/**
 * Ends in `timeout` the queued client runs no agent took within their time limit; returns how
 * many.
 */
export async function expireWaitingClientRuns(direct: DirectSql, now: Date): Promise<number> {
  const rows = await direct.all<ExpiredRow>(SELECT_EXPIRED, [now]);
  let expired = 0;
  for (const row of rows) {
    if (await direct.run(() => expireOne(row, now))) expired += 1;
  }
  return expired;
}

function* expireOne(row: ExpiredRow, now: Date): TransactionPlan<boolean> {
  const message =
    "no agent took the run within its time limit; it waited for an agent since it started";
  const error = { step: null, message };
  const data = { ...fromJsonColumn<Record<string, unknown>>(row.data), error };
  const { changes } = yield* query(EXPIRE_QUEUED, [now, toJsonColumn(data), row.id, now]);
  if (changes !== 1) return false;
  yield* insertEvents([
    { runId: row.id, at: now, type: "run_timed_out", message, data: { error } },
  ]);
  yield* recordRunChange({ id: row.id, owner: row.owner }, "timeout", now);
  yield* recordScheduledEnding({ id: row.id, owner: row.owner }, "timeout", now);
  return true;
}
