import { type DirectSql, query, type SqlValue, type TransactionPlan } from "../direct-sql.js";

/**
 * A checkpoint as the database keeps it (docs/decisions/0051-checkpoints.md): the engine's
 * Checkpoint as JSON, sealed, or null when it was over RUN_CHECKPOINT_MAX_BYTES.
 */
export interface StoredCheckpoint {
  /** The label of the step it comes before. */
  label: string;
  /** Increases with each checkpoint of the run. */
  seq: number;
  /** Before a step of the run's own top-level list. */
  topLevel: boolean;
  sealed: string | null;
  /** The JSON's size in bytes. */
  bytes: number;
  at: Date;
}

/**
 * How many checkpoints a run keeps at most: the latest, and the latest before top-level steps.
 * A rerun from an earlier step than those finds none (and is told so).
 */
export const CHECKPOINTS_KEPT = 50;

// A retried block passes its steps' boundaries again: the later checkpoint replaces the first.
const UPSERT_CHECKPOINT = `INSERT INTO run_checkpoints
    (run_id, step_label, seq, top_level, state, bytes, created_at)
  VALUES (?, ?, ?, (? = 1), ?, ?, ?)
  ON CONFLICT (run_id, step_label) DO UPDATE SET seq = excluded.seq,
    top_level = excluded.top_level, state = excluded.state, bytes = excluded.bytes,
    created_at = excluded.created_at`;

// A checkpoint inside a block is kept only while it is the latest (run id, the latest's seq).
const DROP_OLDER_NESTED = `DELETE FROM run_checkpoints
  WHERE run_id = ? AND top_level = (1 = 0) AND seq < ?`;

// The oldest beyond CHECKPOINTS_KEPT (run id, run id, CHECKPOINTS_KEPT).
const DROP_BEYOND_KEPT = `DELETE FROM run_checkpoints WHERE run_id = ? AND seq <= (
    SELECT seq FROM run_checkpoints WHERE run_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`;

/**
 * Writes a run's new checkpoints, in order, inside the transaction of its events, and drops
 * what is no longer kept.
 */
export function* insertCheckpoints(
  runId: string,
  checkpoints: readonly StoredCheckpoint[],
): TransactionPlan<void> {
  const latest = checkpoints.at(-1);
  if (latest === undefined) return;
  for (const checkpoint of checkpoints) {
    yield* query(UPSERT_CHECKPOINT, checkpointValues(runId, checkpoint));
  }
  yield* query(DROP_OLDER_NESTED, [runId, latest.seq]);
  // Counted only now and then: a run passes few top-level steps between two of these.
  if (checkpoints.some((checkpoint) => checkpoint.seq % 10 === 0)) {
    yield* query(DROP_BEYOND_KEPT, [runId, runId, CHECKPOINTS_KEPT]);
  }
}

/** A checkpoint's row values, `top_level` as 1 or 0 (both flavours compare it to 1). */
export function checkpointValues(runId: string, checkpoint: StoredCheckpoint): SqlValue[] {
  const { label, seq, topLevel, sealed, bytes, at } = checkpoint;
  return [runId, label, seq, topLevel ? 1 : 0, sealed, bytes, at];
}

/** A kept checkpoint: its label, its sealed JSON (null: it was too large) and its size. */
export interface KeptCheckpoint {
  label: string;
  sealed: string | null;
  bytes: number;
}

interface CheckpointRow {
  step_label: string;
  state: string | null;
  bytes: number | bigint;
}

const kept = (row: CheckpointRow | undefined): KeptCheckpoint | null =>
  row === undefined ? null : { label: row.step_label, sealed: row.state, bytes: Number(row.bytes) };

/** The run's checkpoint before step `label`, or its latest when `label` is null. */
export async function readCheckpoint(
  direct: DirectSql,
  runId: string,
  label: string | null,
): Promise<KeptCheckpoint | null> {
  const rows =
    label === null
      ? await direct.all<CheckpointRow>(
          `SELECT step_label, state, bytes FROM run_checkpoints WHERE run_id = ?
            ORDER BY seq DESC LIMIT 1`,
          [runId],
        )
      : await direct.all<CheckpointRow>(
          `SELECT step_label, state, bytes FROM run_checkpoints
            WHERE run_id = ? AND step_label = ?`,
          [runId, label],
        );
  return kept(rows[0]);
}

/** The labels of the steps a run kept a checkpoint before, oldest first. */
export async function checkpointLabels(direct: DirectSql, runId: string): Promise<string[]> {
  const rows = await direct.all<{ step_label: string }>(
    "SELECT step_label FROM run_checkpoints WHERE run_id = ? ORDER BY seq",
    [runId],
  );
  return rows.map((row) => row.step_label);
}
