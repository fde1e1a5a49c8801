import type { WebhookEvent } from "../domain/api-types.js";
import type { StoredRunState } from "../domain/run-state-machine.js";

/** Every event an endpoint can be sent; an endpoint registered without `events` gets them all. */
export const WEBHOOK_EVENTS: readonly WebhookEvent[] = [
  "run.finished",
  "run.failed",
  "run.cancelled",
  "run.timeout",
  "run.paused",
  // A schedule that paused itself after failed runs (db/schedules/run-endings.ts).
  "schedule.paused",
];

/** The event a run's move into `state` is, or undefined when endpoints are not told of it. */
export function webhookEventOf(state: StoredRunState): WebhookEvent | undefined {
  switch (state) {
    case "finish":
      return "run.finished";
    case "reset":
      return "run.failed";
    case "cancel":
      return "run.cancelled";
    case "timeout":
      return "run.timeout";
    case "pause":
      return "run.paused";
    default:
      return undefined;
  }
}
