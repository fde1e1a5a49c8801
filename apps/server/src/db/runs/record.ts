import { type DirectSql, query, type SqlValue, type TransactionPlan } from "../direct-sql.js";
import { toJsonColumn } from "../json-column.js";
import { type NewRunEvent, toRunEventRow } from "../repositories/run-events.js";
import { insertCheckpoints, type StoredCheckpoint } from "./checkpoints.js";
import { insertEvents as insertEventsSql } from "./sql/events.js";
import { FENCE_HELD_RUN, SET_EFFECTS_STEP, SET_HELD_RUN_DATA } from "./sql/record.js";

/** Who holds a run: every write of a worker is conditional on still holding it. */
export interface Holder {
  runId: string;
  workerId: string;
}

// Rows per INSERT of the step log: 15 values each, well inside both flavours' limits on bound
// values, and few enough statement texts to keep prepared.
const EVENTS_PER_INSERT = 50;

/**
 * Appends events to the step log, in order, in as few statements as it takes: on PostgreSQL each
 * statement is a round trip (docs/decisions/0010-one-statement-per-write-on-postgresql.md).
 */
export function* insertEvents(events: readonly NewRunEvent[]): TransactionPlan<void> {
  for (let from = 0; from < events.length; from += EVENTS_PER_INSERT) {
    const chunk = events.slice(from, from + EVENTS_PER_INSERT);
    yield* query(insertEventsSql(chunk.length), chunk.flatMap(eventValues));
  }
}

/** The values of an event's row, in the order of EVENT_COLUMNS. */
export function eventValues(event: NewRunEvent): SqlValue[] {
  const row = toRunEventRow(event);
  return [
    row.runId,
    row.at,
    row.type,
    row.stepIndex,
    row.stepId,
    row.stepKind,
    row.stepLabel,
    row.attempt,
    row.durationMs,
    row.level,
    row.message,
    row.detail,
    row.videoOffsetMs,
    row.stepDetail,
    row.file,
  ];
}

/** What one write of a worker adds to a run it holds (see record). */
export interface RunWrite {
  events: readonly NewRunEvent[];
  /** The run's whole data, when it changed. */
  data?: Record<string, unknown>;
  /** Checkpoints taken since the last write, in order (docs/decisions/0051-checkpoints.md). */
  checkpoints?: readonly StoredCheckpoint[];
  /**
   * The step with effects about to begin (its label), or null once the run has passed a step
   * boundary after it; unchanged when absent (docs/decisions/0023-side-effects-at-most-once.md).
   */
  effects?: string | null;
}

/**
 * Appends events, checkpoints and, when given, the run's data and its step with effects, in one
 * transaction, only while `holder` still holds the run (its worker, in play or pause): the run's
 * row is updated first and the rest follows only when that matched. False when the run was no
 * longer held.
 */
export function record(direct: DirectSql, holder: Holder, write: RunWrite): Promise<boolean> {
  const { events, data, checkpoints = [], effects } = write;
  return direct.run(function* (): TransactionPlan<boolean> {
    // Without data the row is still written (to itself): the write is the fence.
    const { changes } =
      data === undefined
        ? yield* query(FENCE_HELD_RUN, [holder.runId, holder.workerId])
        : yield* query(SET_HELD_RUN_DATA, [toJsonColumn(data), holder.runId, holder.workerId]);
    if (changes !== 1) return false;
    if (effects !== undefined) yield* query(SET_EFFECTS_STEP, [effects, holder.runId]);
    yield* insertEvents(events);
    yield* insertCheckpoints(holder.runId, checkpoints);
    return true;
  });
}
