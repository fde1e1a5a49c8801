import type { StoredRunState } from "../../domain/run-state-machine.js";
import { webhookEventOf } from "../../webhooks/webhook-events.js";
import { query, type TransactionPlan } from "../direct-sql.js";
import { deliveriesOf, subscribedTo } from "./run-changes.js";
import { type NewRunEvent, toRunEventRow } from "./run-events.js";
import { RUN_COLUMNS, type RunColumns, runRowOf } from "./run-list-sql.js";

// The statements a run's hot path shares (its creation, claim, step log and ending) as plans for
// DirectSql.run: a one-step run cost a dozen Prisma queries in five transactions, which held a run
// pipeline to under a hundred runs a second (BENCHMARKS.md). Each plan does what its Prisma
// counterpart did, statement for statement; both flavours run the same plan.

/** Appends one event to the step log. */
export function* insertEvent(event: NewRunEvent): TransactionPlan<void> {
  const row = toRunEventRow(event);
  yield* query(
    `INSERT INTO run_events (run_id, at, type, step_index, step_id, step_kind, step_label, attempt,
        duration_ms, level, message, detail, video_offset_ms)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
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
    ],
  );
}

/** The row of the owner's change feed (`GET /v1/run/stream`) for a change of the run at `at`. */
export function* insertRunChange(
  run: { id: string; owner: string },
  at: Date,
): TransactionPlan<void> {
  yield* query("INSERT INTO run_changes (owner, run_id, at) VALUES (?, ?, ?)", [
    run.owner,
    run.id,
    at,
  ]);
}

/**
 * recordRunChange (run-changes.ts) as a plan: the row of the owner's change feed and, for the
 * states endpoints are told of, one webhook delivery per active subscribed endpoint.
 */
export function* recordRunChangePlan(
  run: { id: string; owner: string },
  state: StoredRunState,
  at: Date,
): TransactionPlan<void> {
  yield* insertRunChange(run, at);
  const event = webhookEventOf(state);
  if (event === undefined) return;
  const { rows: endpoints } = yield* query<{ id: string; events: string }>(
    "SELECT id, events FROM webhooks WHERE owner = ? AND disabled_at IS NULL",
    [run.owner],
  );
  const webhookIds = subscribedTo(endpoints, event);
  if (webhookIds.length === 0) return;
  const { rows } = yield* query<RunColumns>(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = ?`, [
    run.id,
  ]);
  const row = rows[0];
  if (row === undefined) return;
  for (const delivery of deliveriesOf(webhookIds, event, runRowOf(row), at)) {
    yield* query(
      `INSERT INTO webhook_deliveries (id, webhook_id, run_id, event, body, created_at, state,
          next_attempt_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        delivery.id,
        delivery.webhookId,
        delivery.runId,
        delivery.event,
        delivery.body,
        delivery.createdAt,
        delivery.state,
        delivery.nextAttemptAt,
      ],
    );
  }
}
