import type { Clock } from "../../domain/clock.js";
import type { PrismaClient } from "../database.js";
import { type DirectSql, query, type TransactionPlan } from "../direct-sql.js";
import {
  DISABLE_WEBHOOK,
  FAIL_PENDING_DELIVERIES,
  INSERT_WEBHOOK_ATTEMPT,
  SETTLE_DELIVERY,
  takeDelivery,
} from "../runs/sql/webhook-deliveries.js";

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
    /** The writes of deliveries, as every write of run state: straight to the driver. */
    private readonly direct: DirectSql,
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
      const { changes } =
        row.leaseUntil === null
          ? await this.direct.single(takeDelivery(false), [leaseUntil, row.id])
          : await this.direct.single(takeDelivery(true), [leaseUntil, row.id, row.leaseUntil]);
      if (changes !== 1) continue;
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
    return this.direct.run(function* (): TransactionPlan<boolean> {
      const { changes } = yield* query(SETTLE_DELIVERY, [
        outcome.state === "gone" ? "failed" : outcome.state,
        outcome.state === "pending" ? outcome.nextAttemptAt : null,
        ...[delivery.id, delivery.leaseUntil],
      ]);
      if (changes !== 1) return false;
      yield* query(INSERT_WEBHOOK_ATTEMPT, [
        ...[delivery.id, attempt.at, attempt.status, attempt.latencyMs],
        ...[attempt.response, attempt.error],
      ]);
      if (outcome.state === "gone") {
        yield* query(DISABLE_WEBHOOK, [attempt.at, outcome.reason, delivery.webhookId]);
        yield* query(FAIL_PENDING_DELIVERIES, [delivery.webhookId]);
      }
      return true;
    });
  }
}
