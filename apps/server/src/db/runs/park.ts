import { sourcesOf } from "../../domain/run-state-machine.js";
import { type DirectSql, query, type TransactionPlan } from "../direct-sql.js";
import { fromJsonColumn } from "../json-column.js";
import type { NewRunEvent } from "../repositories/run-events.js";
import { stateInSql } from "../repositories/run-state-filter.js";
import { insertRunChange } from "./changes.js";
import { type Holder, insertEvents } from "./record.js";
import { type TimeoutError, type TimingOutRow, timeOutEach } from "./time-out.js";

// Parking (docs/decisions/0052-parking.md): a run that waits gives up its worker, browser and
// slot; it stays in its state with `parked_at` set, and a claim takes it again (claimParked) once
// a client resumed it or its `wait` ended. Nothing else about it changes.

/** How a worker parks a run it holds. */
export interface Parking {
  /** The state the run waits in: `pause` (an ask, a pause asked for) or `play` (a `wait`). */
  state: "pause" | "play";
  /** When a parked `wait` goes on, or a parked pause expires. */
  wakeAt: Date;
  /** Milliseconds of its time limit the run has used so far. */
  activeMs: number;
  /** The label of the checkpoint it goes on from. */
  resumeFrom: string;
  event: NewRunEvent;
}

const PARK_HELD_RUN = `UPDATE runs SET worker_id = NULL, lease_expires_at = NULL, parked_at = ?,
    wake_at = ?, active_ms = ?, resume_from = ?, effects_step = NULL
  WHERE id = ? AND worker_id = ? AND state = ?
  RETURNING owner`;

/** Parks a run the worker holds; false when it no longer holds it in that state. */
export function park(direct: DirectSql, holder: Holder, parking: Parking): Promise<boolean> {
  const { state, wakeAt, activeMs, resumeFrom, event } = parking;
  return direct.run(function* (): TransactionPlan<boolean> {
    const { rows } = yield* query<{ owner: string }>(PARK_HELD_RUN, [
      ...[event.at, wakeAt, Math.round(activeMs), resumeFrom],
      ...[holder.runId, holder.workerId, state],
    ]);
    const row = rows[0];
    if (row === undefined) return false;
    yield* insertEvents([event]);
    // Streams follow it; webhooks are told of no change of state.
    yield* insertRunChange({ id: holder.runId, owner: row.owner }, event.at);
    return true;
  });
}

/** Parked pauses past their expiry, at most 100 (now). */
const SELECT_EXPIRED = `SELECT id, owner, data, paused_for FROM runs
  WHERE state = 'pause' AND parked_at IS NOT NULL AND wake_at <= ? LIMIT 100`;

function expireParkedSql(sources: string): string {
  return `UPDATE runs SET state = 'timeout', end_time = ?, data = ?, parked_at = NULL,
      wake_at = NULL, secret_inputs = NULL
    WHERE id = ? AND state = 'pause' AND parked_at IS NOT NULL AND worker_id IS NULL
      AND ${sources}`;
}

interface ExpiredRow extends TimingOutRow {
  paused_for: string | null;
}

/**
 * Ends in `timeout` the parked runs nobody resumed before their pause expired, as their worker
 * would have had they kept it; returns how many.
 */
export async function expireParked(direct: DirectSql, now: Date): Promise<number> {
  const rows = await direct.all<ExpiredRow>(SELECT_EXPIRED, [now]);
  const sources = stateInSql(sourcesOf("timeout"));
  return timeOutEach(direct, rows, now, (row) => ({
    sql: expireParkedSql(sources.sql),
    params: sources.params,
    error: expiredPauseError(row),
  }));
}

/** What the step log says of a pause nobody ended in time: an ask unanswered, or a pause. */
function expiredPauseError(row: ExpiredRow): TimeoutError {
  const pausedFor = fromJsonColumn<{ reason?: string; step?: string; expires_at?: string }>(
    row.paused_for,
  );
  const step = pausedFor?.step ?? null;
  const message =
    pausedFor?.reason === "ask"
      ? `no answer to step ${step} by ${pausedFor.expires_at}`
      : `the run stayed paused until ${pausedFor?.expires_at} without being resumed`;
  return { step, message };
}
