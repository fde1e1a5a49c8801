import { type DirectSql, query, type SqlValue, type TransactionPlan } from "../direct-sql.js";
import { fromJsonColumn, toJsonColumn } from "../json-column.js";
import { recordScheduledEnding } from "../schedules/run-endings.js";
import { recordRunChange } from "./changes.js";
import { insertEvents } from "./record.js";

/** A run a sweep ends in `timeout` as it reads it: whose, and the data its error joins. */
export interface TimingOutRow {
  id: string;
  owner: string;
  data: string | null;
}

/**
 * Ends each run of `rows` (a sweep's finds) in `timeout` with `error`, each in its own
 * transaction: `sql` is the conditional UPDATE (its parameters: the end time, the data with the
 * error, the run's id, then `params`) that finds the run still where the sweep saw it, or
 * changes nothing. Returns how many it ended.
 */
export async function timeOutEach<Row extends TimingOutRow>(
  direct: DirectSql,
  rows: readonly Row[],
  now: Date,
  update: (row: Row) => { sql: string; params: SqlValue[]; error: TimeoutError },
): Promise<number> {
  let ended = 0;
  for (const row of rows) {
    if (await direct.run(() => timeOut(row, now, update(row)))) ended += 1;
  }
  return ended;
}

/** Why a sweep ended a run: the step it stood at (or none) and what the step log says. */
export interface TimeoutError {
  step: string | null;
  message: string;
}

function* timeOut(
  row: TimingOutRow,
  now: Date,
  { sql, params, error }: { sql: string; params: SqlValue[]; error: TimeoutError },
): TransactionPlan<boolean> {
  const data = { ...fromJsonColumn<Record<string, unknown>>(row.data), error };
  const { changes } = yield* query(sql, [now, toJsonColumn(data), row.id, ...params]);
  if (changes !== 1) return false;
  const { message } = error;
  yield* insertEvents([
    { runId: row.id, at: now, type: "run_timed_out", message, data: { error } },
  ]);
  yield* recordRunChange({ id: row.id, owner: row.owner }, "timeout", now);
  yield* recordScheduledEnding({ id: row.id, owner: row.owner }, "timeout", now);
  return true;
}
