import type { Clock } from "../../domain/clock.js";
import type { PrismaClient } from "../database.js";

/** A delivery a sender has taken, with what sending it needs. */
export interface ClaimedDelivery {
  id: string;
  webhookId: string;
  runId: string;
  event: string;
  body: string;
  url: string;
  /** The endpoint's secret, sealed (see WebhookRepository). */
  sealedSecret: string;
  /** Attempts made before this one (since the last redelivery). */
  attemptCount: number;
  /** The lease this sender holds it by: its outcome is written only while it still holds. */
  leaseUntil: Date;
}

/** One attempt's result, as kept for the deliveries list. */
export interface AttemptRecord {
  at: Date;
  status: number | null;
  latencyMs: number;
  response: string | null;
  error: string | null;
}

/** What becomes of a delivery after an attempt. */
export type AttemptOutcome =
  | { state: "delivered" }
  | { state: "pending"; nextAttemptAt: Date }
  | { state: "failed" }
  /** The endpoint answered 410 Gone: it is disabled, and nothing more is sent to it. */
  | { state: "gone"; reason: string };

/**
 * The senders' side of webhook deliveries: taking due deliveries (each by one sender at a time,
 * whatever the number of processes) and recording each attempt.
 */
export class WebhookDeliveryRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: Clock,
  ) {}

  /**
   * Takes up to `limit` pending deliveries that are due and not held by another sender, holding
   * each for `leaseMs` (past it another sender may take it: this one was lost mid-send). A
   * delivery is taken by a compare-and-set on its lease, so two senders never both take it.
   */
  async claimDue(limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    const now = this.clock.now();
    const due = await this.prisma.webhookDelivery.findMany({
      where: {
        state: "pending",
        nextAttemptAt: { lte: now },
        OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }],
        webhook: { disabledAt: null },
      },
      orderBy: [{ nextAttemptAt: "asc" }, { id: "asc" }],
      take: limit,
      select: {
        id: true,
        webhookId: true,
        runId: true,
        event: true,
        body: true,
        attemptCount: true,
        leaseUntil: true,
        webhook: { select: { url: true, secret: true } },
      },
    });
    const leaseUntil = new Date(now.getTime() + leaseMs);
    const claimed: ClaimedDelivery[] = [];
    for (const row of due) {
      const { count } = await this.prisma.webhookDelivery.updateMany({
        where: { id: row.id, state: "pending", leaseUntil: row.leaseUntil },
        data: { leaseUntil },
      });
      if (count !== 1) continue;
      claimed.push({
        id: row.id,
        webhookId: row.webhookId,
        runId: row.runId,
        event: row.event,
        body: row.body,
        url: row.webhook.url,
        sealedSecret: row.webhook.secret,
        attemptCount: row.attemptCount,
        leaseUntil,
      });
    }
    return claimed;
  }

  /**
   * Records an attempt and what it made of the delivery, if the sender still holds it (false
   * otherwise: its lease ran out and another sender took it). A 410 also disables the endpoint
   * and gives up its other pending deliveries.
   */
  async recordAttempt(
    delivery: ClaimedDelivery,
    attempt: AttemptRecord,
    outcome: AttemptOutcome,
  ): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.webhookDelivery.updateMany({
        where: { id: delivery.id, leaseUntil: delivery.leaseUntil },
        data: {
          state: outcome.state === "gone" ? "failed" : outcome.state,
          nextAttemptAt: outcome.state === "pending" ? outcome.nextAttemptAt : null,
          leaseUntil: null,
          attemptCount: { increment: 1 },
        },
      });
      if (count !== 1) return false;
      await tx.webhookAttempt.create({ data: { deliveryId: delivery.id, ...attempt } });
      if (outcome.state === "gone") {
        await tx.webhook.updateMany({
          where: { id: delivery.webhookId, disabledAt: null },
          data: { disabledAt: attempt.at, disabledReason: outcome.reason },
        });
        await tx.webhookDelivery.updateMany({
          where: { webhookId: delivery.webhookId, state: "pending" },
          data: { state: "failed", nextAttemptAt: null },
        });
      }
      return true;
    });
  }
}
