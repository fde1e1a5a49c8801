import type { WebhookEvent } from "../../domain/api-types.js";
import { newDeliveryId } from "../../domain/ids.js";
import type { StoredRunState } from "../../domain/run-state-machine.js";
import { webhookEventOf } from "../../webhooks/webhook-events.js";
import { query, type TransactionPlan } from "../direct-sql.js";
import { fromJsonColumn } from "../json-column.js";
import { type RunColumns, runRowOf } from "../repositories/run-list-sql.js";
import { type RunRow, toRunSession } from "../repositories/run-session.js";
import {
  INSERT_RUN_CHANGE,
  INSERT_WEBHOOK_DELIVERY,
  SELECT_ACTIVE_ENDPOINTS,
  SELECT_RUN,
} from "./sql/changes.js";

/** A run whose change is recorded: its id and owner. */
export interface ChangedRun {
  id: string;
  owner: string;
}

/** The row of the owner's change feed (`GET /v1/run/stream`) for a change of the run at `at`. */
export function* insertRunChange(run: ChangedRun, at: Date): TransactionPlan<void> {
  yield* query(INSERT_RUN_CHANGE, [run.owner, run.id, at]);
}

/**
 * Records that a run moved into `state`, in the transaction of the change, after it: the row of
 * the owner's change feed and, for the states endpoints are told of, one webhook delivery per
 * active, subscribed endpoint of the owner (the outbox,
 * docs/decisions/0028-webhooks-through-an-outbox.md). So a change that committed is always told,
 * one that did not never is, and a delivery's body is the run exactly as the change left it.
 */
export function* recordRunChange(
  run: ChangedRun,
  state: StoredRunState,
  at: Date,
): TransactionPlan<void> {
  yield* insertRunChange(run, at);
  const event = webhookEventOf(state);
  if (event === undefined) return;
  const { rows: endpoints } = yield* query<{ id: string; events: string }>(
    SELECT_ACTIVE_ENDPOINTS,
    [run.owner],
  );
  const webhookIds = subscribedTo(endpoints, event);
  if (webhookIds.length === 0) return;
  const { rows } = yield* query<RunColumns>(SELECT_RUN, [run.id]);
  const row = rows[0];
  if (row === undefined) return;
  for (const delivery of deliveriesOf(webhookIds, event, runRowOf(row), at)) {
    yield* query(INSERT_WEBHOOK_DELIVERY, [
      delivery.id,
      delivery.webhookId,
      delivery.runId,
      delivery.event,
      delivery.body,
      delivery.createdAt,
      delivery.state,
      delivery.nextAttemptAt,
    ]);
  }
}

/** The ids of the endpoints (their `events` as stored) subscribed to `event`. */
function subscribedTo(endpoints: { id: string; events: string }[], event: WebhookEvent): string[] {
  return endpoints
    .filter((endpoint) => fromJsonColumn<string[]>(endpoint.events).includes(event))
    .map((endpoint) => endpoint.id);
}

/** One pending delivery of `event` per endpoint, the body the run as the change left it. */
function deliveriesOf(webhookIds: string[], event: WebhookEvent, run: RunRow, at: Date) {
  // The video arrives after the run ends, and its link depends on the server asked: null here.
  const body = JSON.stringify({ ...toRunSession(run), video_url: null });
  return webhookIds.map((webhookId) => ({
    id: newDeliveryId(),
    webhookId,
    runId: run.id,
    event,
    body,
    createdAt: at,
    state: "pending",
    nextAttemptAt: at,
  }));
}
