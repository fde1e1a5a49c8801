import { newDeliveryId } from "../../domain/ids.js";
import type { StoredRunState } from "../../domain/run-state-machine.js";
import { webhookEventOf } from "../../webhooks/webhook-events.js";
import type { ChangeClient } from "../../worker/run-signals.js";
import { fromJsonColumn } from "../json-column.js";
import { toRunSession } from "./run-session.js";

/**
 * Writes the webhook deliveries of a run's move into `state` (the outbox): one per endpoint of
 * the run's owner that is active and subscribed to the event. Called inside the transaction of
 * the change, after it, so the deliveries commit with the change or not at all, and the body is
 * the run exactly as the change left it. Nothing for a state endpoints are not told of.
 */
export async function writeWebhookDeliveries(
  db: ChangeClient,
  runId: string,
  state: StoredRunState,
  at: Date,
): Promise<void> {
  const event = webhookEventOf(state);
  if (event === undefined) return;
  const run = await db.run.findUnique({ where: { id: runId } });
  if (run === null) return;
  const endpoints = await db.webhook.findMany({
    where: { owner: run.owner, disabledAt: null },
    select: { id: true, events: true },
  });
  const subscribed = endpoints.filter((endpoint) =>
    fromJsonColumn<string[]>(endpoint.events).includes(event),
  );
  if (subscribed.length === 0) return;
  // The video arrives after the run ends, and its link depends on the server asked: null here.
  const body = JSON.stringify({ ...toRunSession(run), video_url: null });
  await db.webhookDelivery.createMany({
    data: subscribed.map((endpoint) => ({
      id: newDeliveryId(),
      webhookId: endpoint.id,
      runId,
      event,
      body,
      createdAt: at,
      state: "pending",
      nextAttemptAt: at,
    })),
  });
}
