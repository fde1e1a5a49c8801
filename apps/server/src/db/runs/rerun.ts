import { query, type TransactionPlan } from "../direct-sql.js";
import { insertCheckpoints, type StoredCheckpoint } from "./checkpoints.js";
import type { RunCommits } from "./commit.js";
import { type NewRunRow, newRunStatements } from "./create.js";

/** What makes a queued run a rerun (docs/decisions/0051-checkpoints.md). */
export interface RerunOf {
  runId: string;
  /** The label of the step it starts at: its checkpoint's. */
  step: string;
  /** The original's checkpoint before that step, sealed anew for the rerun. */
  checkpoint: StoredCheckpoint;
  /** Whether the rerun was given inputs of its own. */
  ownInputs: boolean;
}

const MARK_RERUN = `UPDATE runs SET rerun_of = ?, rerun_step = ?, resume_from = ?,
    rerun_own_inputs = (? = 1)
  WHERE id = ?`;

/**
 * Queues a rerun: the run, what it reruns, and its copy of the checkpoint it starts at, in one
 * transaction, told to the workers once committed.
 */
export function createRerun(commits: RunCommits, row: NewRunRow, of: RerunOf): Promise<void> {
  return commits.change(function* (): TransactionPlan<{
    value: undefined;
    signal: { type: "queued" };
  }> {
    for (const { sql, params } of newRunStatements(row)) yield* query(sql, params);
    yield* query(MARK_RERUN, [of.runId, of.step, of.step, of.ownInputs ? 1 : 0, row.id]);
    yield* insertCheckpoints(row.id, [of.checkpoint]);
    return { value: undefined, signal: { type: "queued" } };
  });
}
