import {
  createNetworkGuard,
  guardedDispatcher,
  type NetworkPolicy,
  readExcerpt,
} from "@skillrun/engine";
import type { Logger } from "pino";
import type {
  AttemptOutcome,
  AttemptRecord,
  ClaimedDelivery,
  WebhookDeliveryRepository,
} from "../db/repositories/webhook-deliveries.js";
import { webhookSecretContext } from "../db/repositories/webhooks.js";
import type { Clock } from "../domain/clock.js";
import type { DeliveryResult, Metrics } from "../metrics/metrics.js";
import type { SecretBox } from "../secrets/secret-box.js";
import { retryDelayMs } from "./retry-schedule.js";
import { signatureHeaders } from "./signing.js";

/** How much of a response body an attempt keeps. */
const RESPONSE_KEPT_BYTES = 1024;

export interface WebhookSenderDeps {
  deliveries: WebhookDeliveryRepository;
  box: SecretBox;
  clock: Clock;
  logger: Logger;
  /** Where deliveries may be sent: the rules of runs' `http` steps, read at each round. */
  network: () => NetworkPolicy;
  /** Counts the attempts by result (skillrun_webhook_deliveries_total); none in some tests. */
  metrics?: Metrics;
}

export interface WebhookSenderOptions {
  /** How often the sender looks for due deliveries. */
  pollMs: number;
  /** How long an attempt may take before it counts as failed; well under `leaseMs`. */
  timeoutMs: number;
  /** How long a taken delivery is held: longer than an attempt, so only a lost sender loses it. */
  leaseMs: number;
  /** How many deliveries one round sends at once. */
  batch: number;
  /** The first wait of the retry schedule (5 s; tests shorten it). */
  firstRetryDelayMs?: number;
}

export const DEFAULT_WEBHOOK_SENDER_OPTIONS: WebhookSenderOptions = {
  pollMs: 500,
  timeoutMs: 10_000,
  leaseMs: 60_000,
  batch: 16,
};

/**
 * The delivery loop of `serve` and `worker`: takes due deliveries from the outbox, POSTs each
 * (signed, through the network guard, redirects not followed), keeps the attempt, and schedules
 * a retry, gives up, or disables the endpoint on 410. Safe in any number of processes: each
 * delivery is taken by one sender at a time.
 */
export class WebhookSender {
  private timer: NodeJS.Timeout | undefined;
  private round: Promise<void> | undefined;
  /** Aborts the attempts in flight when the sender is stopped at once. */
  private readonly abort = new AbortController();

  constructor(
    private readonly deps: WebhookSenderDeps,
    private readonly options: WebhookSenderOptions = DEFAULT_WEBHOOK_SENDER_OPTIONS,
  ) {}

  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => this.kick(), this.options.pollMs);
    this.kick();
  }

  /**
   * Stops looking for deliveries and waits for the attempts in flight (at most their timeout);
   * `now` aborts them: their deliveries are taken again once their lease runs out.
   */
  async stop(options: { now?: boolean } = {}): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    if (options.now) this.abort.abort();
    await this.round;
  }

  /** Sends what is due, unless a round is under way. */
  private kick(): void {
    if (this.round !== undefined || this.timer === undefined) return;
    this.round = this.sendDue()
      .catch((error: unknown) =>
        this.deps.logger.error({ err: error }, "could not send webhook deliveries"),
      )
      .finally(() => {
        this.round = undefined;
      });
  }

  private async sendDue(): Promise<void> {
    const { batch, leaseMs } = this.options;
    const claimed = await this.deps.deliveries.claimDue(batch, leaseMs);
    if (claimed.length === 0) return;
    const dispatcher = guardedDispatcher(createNetworkGuard(this.deps.network()));
    try {
      await Promise.all(claimed.map((delivery) => this.send(delivery, dispatcher)));
    } finally {
      await dispatcher.close().catch(() => undefined);
    }
  }

  private async send(
    delivery: ClaimedDelivery,
    dispatcher: ReturnType<typeof guardedDispatcher>,
  ): Promise<void> {
    const { clock, box, deliveries, logger } = this.deps;
    const at = clock.now();
    const started = performance.now();
    let status: number | null = null;
    let response: string | null = null;
    let error: string | null = null;
    try {
      const secret = box.open(delivery.sealedSecret, webhookSecretContext(delivery.webhookId));
      const signal = AbortSignal.any([
        AbortSignal.timeout(this.options.timeoutMs),
        this.abort.signal,
      ]);
      const answer = await fetch(delivery.url, {
        method: "POST",
        body: delivery.body,
        headers: {
          "Content-Type": "application/json",
          "User-Agent": "Skillrun-Webhooks/1",
          "X-Skillrun-Event": delivery.event,
          ...signatureHeaders(secret, delivery.id, at, delivery.body),
        },
        redirect: "manual",
        signal,
        dispatcher,
      });
      status = answer.status;
      // NUL dropped: a database column cannot hold it.
      response =
        answer.body === null
          ? null
          : (await readExcerpt(answer, RESPONSE_KEPT_BYTES)).replaceAll("\0", "");
    } catch (failure) {
      error = this.explain(failure);
    }
    const attempt: AttemptRecord = {
      at,
      status,
      latencyMs: Math.round(performance.now() - started),
      response,
      error,
    };
    const outcome = this.outcomeOf(delivery, status, at);
    const recorded = await deliveries.recordAttempt(delivery, attempt, outcome);
    const line = {
      webhookId: delivery.webhookId,
      deliveryId: delivery.id,
      runId: delivery.runId,
      event: delivery.event,
      attempt: delivery.attemptCount + 1,
      status,
      latencyMs: attempt.latencyMs,
      outcome: outcome.state,
      ...(outcome.state === "pending" && { nextAttemptAt: outcome.nextAttemptAt.toISOString() }),
      ...(error !== null && { error }),
    };
    if (recorded) this.deps.metrics?.webhookDeliveries.inc({ result: resultOf(outcome) });
    if (!recorded) {
      logger.warn(line, "webhook attempt not recorded: another sender took the delivery");
    } else if (outcome.state === "delivered") {
      logger.info(line, "webhook delivered");
    } else if (outcome.state === "gone") {
      logger.warn(line, "webhook endpoint answered 410 Gone: disabled");
    } else {
      logger.warn(
        line,
        outcome.state === "failed"
          ? "webhook delivery given up"
          : "webhook attempt failed; will retry",
      );
    }
  }

  private outcomeOf(delivery: ClaimedDelivery, status: number | null, at: Date): AttemptOutcome {
    if (status !== null && status >= 200 && status < 300) return { state: "delivered" };
    if (status === 410) return { state: "gone", reason: "the endpoint answered 410 Gone" };
    const wait = retryDelayMs(delivery.attemptCount + 1, {
      ...(this.options.firstRetryDelayMs !== undefined && {
        firstDelayMs: this.options.firstRetryDelayMs,
      }),
    });
    if (wait === undefined) return { state: "failed" };
    return { state: "pending", nextAttemptAt: new Date(at.getTime() + wait) };
  }

  /** Why an attempt got no status, in a line an owner can act on. */
  private explain(failure: unknown): string {
    if (this.abort.signal.aborted) return "the server stopped during the attempt";
    if (failure instanceof Error && failure.name === "TimeoutError") {
      return `no answer within ${this.options.timeoutMs / 1000} s`;
    }
    // fetch reports connection failures as "fetch failed" with the reason as its cause.
    const cause = failure instanceof Error ? (failure.cause ?? failure) : failure;
    const text = cause instanceof Error ? cause.message : String(cause);
    return text.slice(0, RESPONSE_KEPT_BYTES);
  }
}

/** An attempt's result as the metrics label it: gone (410) and given up both end the delivery. */
function resultOf(outcome: AttemptOutcome): DeliveryResult {
  if (outcome.state === "delivered") return "delivered";
  return outcome.state === "pending" ? "failed" : "gave_up";
}
