import type { DirectSql } from "../direct-sql.js";

/** What a live view reads of its run at once: who owns it, whether it ended, its latest frame. */
export interface LiveViewRead {
  owner: string;
  /** The run has ended (its `end_time` is set): its live view is over. */
  ended: boolean;
  /** The number of the latest frame written (0: none yet). */
  seq: number;
  /** That frame, when its number is above the one the reader has; null otherwise. */
  frame: Buffer | null;
}

// A run's live view is written only while the run has not ended, so that no row is left behind
// by a write that lost a race with the run's ending.
const NOT_ENDED = "EXISTS (SELECT 1 FROM runs WHERE id = ? AND end_time IS NULL)";

const WATCH = `INSERT INTO run_live_views (run_id, watch_ends_at)
  SELECT ?, ? WHERE ${NOT_ENDED}
  ON CONFLICT (run_id) DO UPDATE SET watch_ends_at = excluded.watch_ends_at`;

const WRITE_FRAME = `INSERT INTO run_live_views (run_id, frame, frame_seq, frame_at)
  SELECT ?, ?, 1, ? WHERE ${NOT_ENDED}
  ON CONFLICT (run_id) DO UPDATE SET frame = excluded.frame,
    frame_seq = run_live_views.frame_seq + 1, frame_at = excluded.frame_at`;

// The frame's bytes only when the reader has not seen it: most reads find nothing new.
const READ = `SELECT r.owner, r.end_time, COALESCE(l.frame_seq, 0) AS frame_seq,
    CASE WHEN l.frame_seq > ? THEN l.frame END AS frame
  FROM runs r LEFT JOIN run_live_views l ON l.run_id = r.id
  WHERE r.id = ?`;

/**
 * Runs' live views (docs/decisions/0057-live-view-through-the-database.md): the API's streams
 * say until when somebody watches a run and read its latest frame; the run's worker reads the
 * former (with its runs' states, RunExecutionRepository.statesOf) and writes the latter, so a
 * stream on any server shows a run executing on any worker.
 */
export class LiveViewRepository {
  constructor(private readonly direct: DirectSql) {}

  /** The run's owner and whether it has ended; null when there is no such run. */
  async runOf(runId: string): Promise<{ owner: string; ended: boolean } | null> {
    const [row] = await this.direct.all<{ owner: string; end_time: Date | null }>(
      "SELECT owner, end_time FROM runs WHERE id = ?",
      [runId],
    );
    return row === undefined ? null : { owner: row.owner, ended: row.end_time !== null };
  }

  /** Somebody watches the run until `until`; nothing when the run has ended (or is unknown). */
  async watch(runId: string, until: Date): Promise<void> {
    await this.direct.single(WATCH, [runId, until, runId]);
  }

  /** The run's latest frame is `jpeg`; false when the run has ended (nothing written). */
  async writeFrame(runId: string, jpeg: Buffer, at: Date): Promise<boolean> {
    const { changes } = await this.direct.single(WRITE_FRAME, [runId, jpeg, at, runId]);
    return changes > 0;
  }

  /** The run's owner, whether it ended, and its frame when newer than `afterSeq`; null: no run. */
  async read(runId: string, afterSeq: number): Promise<LiveViewRead | null> {
    const [row] = await this.direct.all<{
      owner: string;
      end_time: Date | null;
      frame_seq: number | bigint;
      frame: Buffer | Uint8Array | null;
    }>(READ, [afterSeq, runId]);
    if (row === undefined) return null;
    return {
      owner: row.owner,
      ended: row.end_time !== null,
      seq: Number(row.frame_seq),
      frame: row.frame === null ? null : Buffer.from(row.frame),
    };
  }

  /** Removes the run's live view once the run has ended (a frame of it is no use any more). */
  async forgetEnded(runId: string): Promise<void> {
    await this.direct.single(
      "DELETE FROM run_live_views WHERE run_id = ? AND EXISTS (SELECT 1 FROM runs WHERE id = ? AND end_time IS NOT NULL)",
      [runId, runId],
    );
  }
}
