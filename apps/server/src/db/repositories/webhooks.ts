import type {
  Webhook,
  WebhookCreated,
  WebhookDelivery,
  WebhookEvent,
} from "../../domain/api-types.js";
import type { Clock } from "../../domain/clock.js";
import { newWebhookId } from "../../domain/ids.js";
import type { SecretBox } from "../../secrets/secret-box.js";
import { newWebhookSecret } from "../../webhooks/signing.js";
import type { PrismaClient } from "../database.js";
import type { DirectSql } from "../direct-sql.js";
import { fromJsonColumn, toJsonColumn } from "../json-column.js";
import { REDELIVER } from "../runs/sql/webhook-deliveries.js";

/** How many endpoints an owner may register: each run event is written once per endpoint. */
export const MAX_WEBHOOKS_PER_OWNER = 20;

/** How many attempts of one delivery are listed (the newest); redeliveries can add many. */
const ATTEMPTS_LISTED = 50;

type WebhookRow = {
  id: string;
  url: string;
  events: string;
  createdAt: Date;
  disabledAt: Date | null;
  disabledReason: string | null;
};

type DeliveryRow = {
  id: string;
  webhookId: string;
  runId: string;
  event: string;
  createdAt: Date;
  state: string;
  nextAttemptAt: Date | null;
  attempts: {
    at: Date;
    status: number | null;
    latencyMs: number;
    response: string | null;
    error: string | null;
  }[];
};

const webhookColumns = {
  id: true,
  url: true,
  events: true,
  createdAt: true,
  disabledAt: true,
  disabledReason: true,
} as const;

function toWebhook(row: WebhookRow): Webhook {
  return {
    id: row.id,
    url: row.url,
    events: fromJsonColumn<WebhookEvent[]>(row.events),
    created_at: row.createdAt.toISOString(),
    disabled_at: row.disabledAt?.toISOString() ?? null,
    disabled_reason: row.disabledReason,
  };
}

function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    webhook_id: row.webhookId,
    run_id: row.runId,
    event: row.event as WebhookEvent,
    created_at: row.createdAt.toISOString(),
    state: row.state as WebhookDelivery["state"],
    next_attempt_at: row.nextAttemptAt?.toISOString() ?? null,
    attempts: row.attempts
      .map((attempt) => ({
        at: attempt.at.toISOString(),
        status: attempt.status,
        latency_ms: attempt.latencyMs,
        response: attempt.response,
        error: attempt.error,
      }))
      .reverse(),
  };
}

const deliveryColumns = {
  id: true,
  webhookId: true,
  runId: true,
  event: true,
  createdAt: true,
  state: true,
  nextAttemptAt: true,
  // The newest, turned back into oldest first by toDelivery.
  attempts: {
    orderBy: { id: "desc" },
    take: ATTEMPTS_LISTED,
    select: { at: true, status: true, latencyMs: true, response: true, error: true },
  },
} as const;

/** The context an endpoint's secret is sealed for: it opens as this endpoint's only. */
export function webhookSecretContext(webhookId: string): string[] {
  return ["webhook", webhookId];
}

/** What a redelivery request comes to. */
export type Redelivery =
  | { outcome: "pending"; delivery: WebhookDelivery }
  | { outcome: "no_webhook" | "no_delivery" | "disabled" };

/** Webhook endpoints and their deliveries as the API shows them, always within one owner. */
export class WebhookRepository {
  constructor(
    private readonly prisma: PrismaClient,
    /** Writes of deliveries, as every write of run state: straight to the driver. */
    private readonly direct: DirectSql,
    private readonly clock: Clock,
    private readonly box: SecretBox,
  ) {}

  /**
   * Registers an endpoint, its secret sealed at rest; the answer is the one place the secret is
   * shown. Null when the owner has MAX_WEBHOOKS_PER_OWNER already (checked before the write, so
   * endpoints registered at the same moment may pass it by a few).
   */
  async create(owner: string, url: string, events: WebhookEvent[]): Promise<WebhookCreated | null> {
    if ((await this.prisma.webhook.count({ where: { owner } })) >= MAX_WEBHOOKS_PER_OWNER) {
      return null;
    }
    const id = newWebhookId();
    const secret = newWebhookSecret();
    const row = await this.prisma.webhook.create({
      data: {
        id,
        owner,
        url,
        events: toJsonColumn(events),
        secret: this.box.seal(secret, webhookSecretContext(id)),
        createdAt: this.clock.now(),
      },
      select: webhookColumns,
    });
    return { ...toWebhook(row), secret };
  }

  /** The owner's endpoints, oldest first. */
  async list(owner: string): Promise<Webhook[]> {
    const rows = await this.prisma.webhook.findMany({
      where: { owner },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      select: webhookColumns,
    });
    return rows.map(toWebhook);
  }

  /** Deletes the owner's endpoint and its deliveries; false when there was none. */
  async delete(owner: string, id: string): Promise<boolean> {
    const { count } = await this.prisma.webhook.deleteMany({ where: { owner, id } });
    return count === 1;
  }

  /** The endpoint's newest `limit` deliveries with their attempts; null when it is not the owner's. */
  async deliveries(owner: string, id: string, limit: number): Promise<WebhookDelivery[] | null> {
    const webhook = await this.prisma.webhook.findFirst({
      where: { owner, id },
      select: { id: true },
    });
    if (webhook === null) return null;
    const rows = await this.prisma.webhookDelivery.findMany({
      where: { webhookId: id },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: limit,
      select: deliveryColumns,
    });
    return rows.map(toDelivery);
  }

  /**
   * Makes a delivery pending again, due now, with its attempts counted afresh (its body and id
   * unchanged). An attempt in flight is not interrupted: its outcome stands.
   */
  async redeliver(owner: string, id: string, deliveryId: string): Promise<Redelivery> {
    const webhook = await this.prisma.webhook.findFirst({
      where: { owner, id },
      select: { disabledAt: true },
    });
    if (webhook === null) return { outcome: "no_webhook" };
    if (webhook.disabledAt !== null) return { outcome: "disabled" };
    const { changes } = await this.direct.single(REDELIVER, [this.clock.now(), deliveryId, id]);
    if (changes === 0) return { outcome: "no_delivery" };
    const row = await this.prisma.webhookDelivery.findUniqueOrThrow({
      where: { id: deliveryId },
      select: deliveryColumns,
    });
    return { outcome: "pending", delivery: toDelivery(row) };
  }
}
