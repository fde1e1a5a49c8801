import { expect } from "vitest";
import type { WebhookCreated, WebhookDelivery } from "../../src/domain/api-types.js";
import { call } from "./http.js";
import type { WebhookReceiver } from "./webhook-receiver.js";

/** The webhook operations of one owner's key, as the tests use them. */
export class WebhookApi {
  constructor(
    private readonly origin: string,
    private readonly key: string,
  ) {}

  /** Registers `receiver` (for `events`, all by default) and hands it the signing secret. */
  async register(receiver: WebhookReceiver, events?: string[]): Promise<WebhookCreated> {
    const reply = await call(this.origin, "POST", "/v1/webhook", {
      key: this.key,
      json: { url: receiver.url, ...(events && { events }) },
    });
    expect(reply.status, reply.text).toBe(201);
    const created = reply.body as WebhookCreated;
    receiver.secret = created.secret;
    return created;
  }

  async deliveries(webhookId: string): Promise<WebhookDelivery[]> {
    const reply = await call(this.origin, "GET", `/v1/webhook/${webhookId}/deliveries`, {
      key: this.key,
    });
    expect(reply.status, reply.text).toBe(200);
    return reply.body as WebhookDelivery[];
  }

  /** Polls the endpoint's deliveries until `done` holds of them. */
  async deliveriesWhen(
    webhookId: string,
    done: (list: WebhookDelivery[]) => boolean,
    timeoutMs = 20_000,
  ): Promise<WebhookDelivery[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const list = await this.deliveries(webhookId);
      if (done(list)) return list;
      if (Date.now() > deadline) throw new Error(`deliveries still ${JSON.stringify(list)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
