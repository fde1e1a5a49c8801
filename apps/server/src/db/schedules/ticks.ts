import { query, type SqlValue, type TransactionPlan } from "../direct-sql.js";
import type { RunCommits } from "../runs/commit.js";
import { type NewRunRow, newRunStatements } from "../runs/create.js";

/** How many ticks of a schedule are kept, the newest. */
export const TICKS_KEPT = 1000;

/** A tick as written (its seq is the schedule's count of ticks). */
export interface NewTick {
  tickAt: Date;
  outcome: "fired" | "skipped" | "buffered";
  runId: string | null;
  reason: string | null;
  message: string | null;
  manual: boolean;
}

/** A run a schedule starts: its row, and the time the cron named for it. */
export interface ScheduledRun {
  row: NewRunRow;
  scheduledAt: Date;
}

/**
 * One write of a schedule's tick: the schedule row moved on, the run queued (if any) and the
 * ticks recorded, in one transaction. `version` is the row's as read when the tick was decided:
 * the write happens only while it is still the row's and the schedule is not paused, so of any
 * number of schedulers deciding the same tick exactly one writes it (a trigger passes null: it
 * fires whatever the row says).
 */
export interface TickWrite {
  scheduleId: string;
  version: number | null;
  /** Columns of the schedule to set (each left as it is when absent). */
  set: { nextTickAt?: Date | null; fireAt?: Date | null; bufferedTickAt?: Date | null };
  run: ScheduledRun | null;
  /** New tick rows, oldest first. */
  ticks: Omit<NewTick, "runId">[];
  /**
   * The tick kept for overlap buffer_one is settled: fired by `run`, or, without one, skipped
   * for `skipped`'s reason. No new row is written for it.
   */
  settlesBuffered?: { skipped: { reason: string; message: string } | null };
  now: Date;
}

/** The schedule that started a run, and the time its cron named for it. */
const MARK_SCHEDULED = "UPDATE runs SET schedule_id = ?, scheduled_at = ? WHERE id = ?";

const INSERT_TICK = `INSERT INTO schedule_ticks (schedule_id, seq, tick_at, decided_at, outcome,
    run_id, reason, message, manual)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, (? = 1))`;

const SETTLE_BUFFERED_TICK = `UPDATE schedule_ticks SET outcome = ?, run_id = ?, reason = ?,
    message = ?, decided_at = ?
  WHERE schedule_id = ? AND outcome = 'buffered'`;

const TRIM_TICKS = "DELETE FROM schedule_ticks WHERE schedule_id = ? AND seq <= ?";

/** The schedule's UPDATE for `write`, and its parameters. */
function moveOn(write: TickWrite): { sql: string; params: SqlValue[] } {
  const sets = ["tick_seq = tick_seq + ?", "version = version + 1"];
  const params: SqlValue[] = [write.ticks.length];
  const column = {
    nextTickAt: "next_tick_at",
    fireAt: "fire_at",
    bufferedTickAt: "buffered_tick_at",
  };
  for (const key of ["nextTickAt", "fireAt", "bufferedTickAt"] as const) {
    if (write.set[key] === undefined) continue;
    sets.push(`${column[key]} = ?`);
    params.push(write.set[key] ?? null);
  }
  if (write.run !== null) {
    sets.push("last_run_id = ?");
    params.push(write.run.row.id);
  }
  params.push(write.scheduleId);
  let where = "id = ?";
  if (write.version !== null) {
    where += " AND version = ? AND paused = false";
    params.push(write.version);
  }
  return {
    sql: `UPDATE schedules SET ${sets.join(", ")} WHERE ${where} RETURNING tick_seq`,
    params,
  };
}

/**
 * Writes a tick (see TickWrite); false when the schedule had moved on meanwhile (another
 * scheduler took the tick, a client changed or paused it, it was deleted): then nothing is
 * written. A queued run is told to the workers once committed.
 */
export function writeTick(commits: RunCommits, write: TickWrite): Promise<boolean> {
  return commits.change(function* (): TransactionPlan<{
    value: boolean;
    signal?: { type: "queued" };
  }> {
    const update = moveOn(write);
    const { rows } = yield* query<{ tick_seq: number | string }>(update.sql, update.params);
    const moved = rows[0];
    if (moved === undefined) return { value: false };
    const { run } = write;
    if (run !== null) {
      for (const { sql, params } of newRunStatements(run.row)) yield* query(sql, params);
      yield* query(MARK_SCHEDULED, [write.scheduleId, run.scheduledAt, run.row.id]);
    }
    const settled = write.settlesBuffered;
    if (settled !== undefined) {
      const { skipped } = settled;
      yield* query(SETTLE_BUFFERED_TICK, [
        ...(run !== null ? ["fired", run.row.id, null, null] : []),
        ...(run === null
          ? ["skipped", null, skipped?.reason ?? null, skipped?.message ?? null]
          : []),
        ...[write.now, write.scheduleId],
      ]);
    }
    const last = Number(moved.tick_seq);
    let seq = last - write.ticks.length;
    for (const tick of write.ticks) {
      seq += 1;
      // The run belongs to the tick that fired it (the last one written).
      const runId = tick.outcome === "fired" && run !== null ? run.row.id : null;
      yield* query(INSERT_TICK, [
        ...[write.scheduleId, seq, tick.tickAt, write.now, tick.outcome],
        ...[runId, tick.reason, tick.message, tick.manual ? 1 : 0],
      ]);
    }
    if (write.ticks.length > 0 && last > TICKS_KEPT) {
      yield* query(TRIM_TICKS, [write.scheduleId, last - TICKS_KEPT]);
    }
    return run === null ? { value: true } : { value: true, signal: { type: "queued" } };
  });
}
