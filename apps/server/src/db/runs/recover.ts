import { sourcesOf } from "../../domain/run-state-machine.js";
import { type DirectSql, query, type TransactionPlan } from "../direct-sql.js";
import { fromJsonColumn, toJsonColumn } from "../json-column.js";
import type { NewRunEvent } from "../repositories/run-events.js";
import { stateInSql } from "../repositories/run-state-filter.js";
import { recordScheduledEnding } from "../schedules/run-endings.js";
import { recordRunChange } from "./changes.js";
import { type Holder, insertEvents } from "./record.js";
import {
  releaseHeldRun,
  requeueLostRun,
  resetLostRun,
  SELECT_LAST_STEP,
  SELECT_LOST_RUNS,
} from "./sql/recover.js";

// Runs go back to the queue two ways: a draining worker releases what it holds
// (docs/decisions/0026-draining-shutdown.md), and every worker recovers the runs of workers that
// stopped renewing their leases (docs/decisions/0022-leases-and-fencing.md).

/**
 * Puts a run the worker holds back in the queue (the worker is shutting down); the claim does
 * not count as an attempt. False when the run was no longer the worker's.
 */
export function release(direct: DirectSql, holder: Holder, event: NewRunEvent): Promise<boolean> {
  const sources = stateInSql(sourcesOf(null));
  return direct.run(function* (): TransactionPlan<boolean> {
    const { rows } = yield* query<{ owner: string }>(releaseHeldRun(sources.sql), [
      holder.runId,
      holder.workerId,
      ...sources.params,
    ]);
    const row = rows[0];
    if (row === undefined) return false;
    yield* insertEvents([event]);
    yield* recordRunChange({ id: holder.runId, owner: row.owner }, null, event.at);
    return true;
  });
}

/** A run whose lease ran out, as recovery reads it. */
interface LostRun {
  id: string;
  worker_id: string | null;
  attempts: number | bigint;
  data: string | null;
  lease_expires_at: Date | null;
  effects_step: string | null;
}

/**
 * Recovers runs whose worker stopped renewing its lease before `now`: re-queued while they have
 * been claimed fewer than `maxAttempts` times and began no step with effects, otherwise ended in
 * `reset` with an error naming the step the worker was lost in. Returns how many of each.
 */
export async function recoverLost(
  direct: DirectSql,
  now: Date,
  maxAttempts: number,
): Promise<{ requeued: number; reset: number }> {
  const lost = await direct.all<LostRun>(SELECT_LOST_RUNS, [now]);
  const recovered = { requeued: 0, reset: 0 };
  for (const run of lost) {
    const outcome = await direct.run(() => recoverOne(run, now, maxAttempts));
    if (outcome !== null) recovered[outcome] += 1;
  }
  return recovered;
}

function* recoverOne(
  run: LostRun,
  now: Date,
  maxAttempts: number,
): TransactionPlan<"requeued" | "reset" | null> {
  const { rows: steps } = yield* query<{ step_label: string | null }>(SELECT_LAST_STEP, [run.id]);
  const attempts = Number(run.attempts);
  const lost = `worker ${run.worker_id ?? "?"} was lost: it stopped renewing its lease (expired ${run.lease_expires_at?.toISOString()})`;
  // The step log may lag behind the mark, which was written before its step began.
  const step = steps[0]?.step_label ?? run.effects_step;
  const requeue = attempts < maxAttempts && run.effects_step === null;
  const message =
    run.effects_step !== null
      ? `worker lost during step ${step}; not re-run because it may have had effects (${lost}; a skill with on_worker_loss: restart is re-run instead)`
      : requeue
        ? `${lost}; the run was re-queued (attempt ${attempts} of ${maxAttempts})`
        : `${lost}; attempt ${attempts} of ${maxAttempts}, so the run was reset`;
  const sources = stateInSql(sourcesOf(requeue ? null : "reset"));
  // A run in play or pause always names its worker, so `worker_id = ?` is its holder.
  const held = [run.id, run.worker_id, now, ...sources.params];
  const error = { step, message };
  const data = toJsonColumn({ ...fromJsonColumn<object>(run.data), error });
  const { rows } = requeue
    ? yield* query<{ owner: string }>(requeueLostRun(sources.sql), held)
    : yield* query<{ owner: string }>(resetLostRun(sources.sql), [...[now, data], ...held]);
  const row = rows[0];
  if (row === undefined) return null;
  yield* insertEvents([
    {
      runId: run.id,
      at: now,
      type: "worker_lost",
      attempt: attempts,
      message,
      data: {
        worker: run.worker_id,
        requeued: requeue,
        ...(run.effects_step !== null && { effects_step: run.effects_step }),
      },
    },
  ]);
  yield* recordRunChange({ id: run.id, owner: row.owner }, requeue ? null : "reset", now);
  if (!requeue) yield* recordScheduledEnding({ id: run.id, owner: row.owner }, "reset", now);
  return requeue ? "requeued" : "reset";
}
