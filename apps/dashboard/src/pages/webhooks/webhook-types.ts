import type { components } from "@skillrun/client";

/** A webhook endpoint of the caller's, as `GET /v1/webhook/list` gives it. */
export type Webhook = components["schemas"]["Webhook"];
/** One event's delivery to an endpoint, with its attempts. */
export type Delivery = components["schemas"]["WebhookDelivery"];

/** The events an endpoint can be sent; a new endpoint is sent them all. */
export const WEBHOOK_EVENTS = [
  "run.finished",
  "run.failed",
  "run.cancelled",
  "run.timeout",
  "run.paused",
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** The cached list of endpoints, read again after one is added or deleted. */
export const WEBHOOKS_KEY = ["webhooks"] as const;

/** The cached deliveries of one endpoint. */
export function deliveriesKey(webhookId: string) {
  return ["deliveries", webhookId] as const;
}
