import type { StoredRunState } from "../../domain/run-state-machine.js";
import { webhookEventOf } from "../../webhooks/webhook-events.js";
import { query, type SqlStatement, type SqlValue, type TransactionPlan } from "../direct-sql.js";
import { deliveriesOf, subscribedTo } from "./run-changes.js";
import { type NewRunEvent, toRunEventRow } from "./run-events.js";
import { RUN_COLUMNS, type RunColumns, runRowOf } from "./run-list-sql.js";

// The statements a run's hot path shares (its creation, claim, step log and ending) as plans for
// DirectSql.run: a one-step run cost a dozen Prisma queries in five transactions, which held a run
// pipeline to under a hundred runs a second (BENCHMARKS.md). Each plan does what its Prisma
// counterpart did, statement for statement; both flavours run the same plan.

// Rows per INSERT of the step log: 13 values each, well inside both flavours' limits on bound
// values, and few enough statement texts to keep prepared.
const EVENTS_PER_INSERT = 50;

/**
 * Appends events to the step log, in order, as few statements as it takes: on PostgreSQL each
 * statement is a round trip, and a worker writing a run's events one by one spent more of its
 * time in socket writes than anywhere else (BENCHMARKS.md).
 */
export function* insertEvents(events: readonly NewRunEvent[]): TransactionPlan<void> {
  for (let from = 0; from < events.length; from += EVENTS_PER_INSERT) {
    const chunk = events.slice(from, from + EVENTS_PER_INSERT);
    yield* query(
      `INSERT INTO run_events (${EVENT_COLUMNS})
        VALUES ${chunk.map(() => EVENT_PLACEHOLDERS).join(", ")}`,
      chunk.flatMap(eventValues),
    );
  }
}

/** The columns of a step log row, in the order of eventValues. */
export const EVENT_COLUMNS = `run_id, at, type, step_index, step_id, step_kind, step_label, attempt,
  duration_ms, level, message, detail, video_offset_ms`;

/** One `?` per column of EVENT_COLUMNS. */
export const EVENT_PLACEHOLDERS = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

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
  ];
}

/** The row of the owner's change feed (`GET /v1/run/stream`) for a change of the run at `at`. */
export function runChangeRow(run: { id: string; owner: string }, at: Date): SqlStatement {
  return {
    sql: "INSERT INTO run_changes (owner, run_id, at) VALUES (?, ?, ?)",
    params: [run.owner, run.id, at],
  };
}

/** runChangeRow as a plan's statement. */
export function* insertRunChange(
  run: { id: string; owner: string },
  at: Date,
): TransactionPlan<void> {
  const { sql, params } = runChangeRow(run, at);
  yield* query(sql, params);
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
