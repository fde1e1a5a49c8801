import type { RunState } from "../../domain/api-types.js";
import { sourcesOf } from "../../domain/run-state-machine.js";
import { type DirectSql, query, type TransactionPlan } from "../direct-sql.js";
import type { NewRunEvent } from "../repositories/run-events.js";
import { stateInSql } from "../repositories/run-state-filter.js";
import { recordRunChange } from "./changes.js";
import type { RunCommits } from "./commit.js";
import { type Holder, insertEvents } from "./record.js";
import { cancelRun, SELECT_CANCELLED_HELD, SELECT_PARKED, SELECT_RUN_STATE } from "./sql/cancel.js";

/**
 * A client cancels the owner's run unless it has ended; returns its state after the call, null
 * when the owner has no such run. The cancel, its change and its webhook deliveries commit
 * together, and the run's worker is told to stop it. `cancelled`: this call is the one that
 * cancelled it.
 */
export function cancel(
  commits: RunCommits,
  run: { id: string; owner: string },
  at: Date,
): Promise<{ state: RunState | null; cancelled: boolean }> {
  const sources = stateInSql(sourcesOf("cancel"));
  return commits.change(function* () {
    // A parked run has no worker to say where it stopped: the cancel does.
    const { rows: parked } = yield* query<{ resume_from: string | null }>(SELECT_PARKED, [
      run.id,
      run.owner,
    ]);
    const { changes } = yield* query(cancelRun(sources.sql), [
      ...[at, run.id, run.owner],
      ...sources.params,
    ]);
    if (changes === 1) yield* recordRunChange(run, "cancel", at);
    const where = parked[0];
    if (changes === 1 && where !== undefined) {
      const message = `stopped: the run was cancelled while parked before step ${where.resume_from}`;
      yield* insertEvents([{ runId: run.id, at, type: "run_cancelled", message }]);
    }
    const { rows } = yield* query<{ state: string | null }>(SELECT_RUN_STATE, [run.id, run.owner]);
    const row = rows[0];
    return {
      // A run the call found is in a state by now: null only when there is none.
      value: { state: (row?.state ?? null) as RunState | null, cancelled: changes === 1 },
      signal: changes === 1 ? { type: "cancelled", runId: run.id } : undefined,
    };
  });
}

/**
 * The worker records where a cancelled run stopped (`earlier`, the step log's last, then
 * `event`): the cancel was the API's write, so the run is in `cancel`, still naming this worker;
 * false when it is not. Only events are written: a terminal run's row is never written again.
 */
export function recordCancelled(
  direct: DirectSql,
  holder: Holder,
  event: NewRunEvent,
  earlier: readonly NewRunEvent[] = [],
): Promise<boolean> {
  return direct.run(function* (): TransactionPlan<boolean> {
    const { rows } = yield* query(SELECT_CANCELLED_HELD, [holder.runId, holder.workerId]);
    if (rows.length !== 1) return false;
    yield* insertEvents([...earlier, event]);
    return true;
  });
}
