import type { RunSession, WebhookEvent } from "../../domain/api-types.js";
import { newDeliveryId } from "../../domain/ids.js";
import type { StoredRunState } from "../../domain/run-state-machine.js";
import { webhookEventOf } from "../../webhooks/webhook-events.js";
import type { ChangeClient } from "../../worker/run-signals.js";
import type { PrismaClient } from "../database.js";
import { fromJsonColumn } from "../json-column.js";
import { type RunRow, toRunSession } from "./run-session.js";

/**
 * Records that a run moved into `state`, inside the transaction of the change, after it: a row
 * of the owner's change feed (`GET /v1/run/stream`), and, for the states endpoints are told of,
 * one webhook delivery per active, subscribed endpoint of the owner (the outbox). So a change
 * that committed is always told, one that did not never is, and a delivery's body is the run
 * exactly as the change left it. `owner` saves a read where the caller knows it.
 */
export async function recordRunChange(
  db: ChangeClient,
  run: { id: string; owner?: string },
  state: StoredRunState,
  at: Date,
): Promise<void> {
  const owner =
    run.owner ??
    (await db.run.findUnique({ where: { id: run.id }, select: { owner: true } }))?.owner;
  if (owner === undefined) return;
  await db.runChange.create({ data: { owner, runId: run.id, at } });
  await writeWebhookDeliveries(db, run.id, owner, state, at);
}

async function writeWebhookDeliveries(
  db: ChangeClient,
  runId: string,
  owner: string,
  state: StoredRunState,
  at: Date,
): Promise<void> {
  const event = webhookEventOf(state);
  if (event === undefined) return;
  const endpoints = await db.webhook.findMany({
    where: { owner, disabledAt: null },
    select: { id: true, events: true },
  });
  const webhookIds = subscribedTo(endpoints, event);
  if (webhookIds.length === 0) return;
  const run = await db.run.findUnique({ where: { id: runId } });
  if (run === null) return;
  await db.webhookDelivery.createMany({ data: deliveriesOf(webhookIds, event, run, at) });
}

/** The ids of the endpoints (their `events` as stored) subscribed to `event`. */
export function subscribedTo(
  endpoints: { id: string; events: string }[],
  event: WebhookEvent,
): string[] {
  return endpoints
    .filter((endpoint) => fromJsonColumn<string[]>(endpoint.events).includes(event))
    .map((endpoint) => endpoint.id);
}

/** One pending delivery of `event` per endpoint, the body the run as the change left it. */
export function deliveriesOf(webhookIds: string[], event: WebhookEvent, run: RunRow, at: Date) {
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

/** One change of the feed: the owner's, with its run as it is now, or another owner's (null). */
export interface RunChangeEntry {
  id: number;
  run: RunSession | null;
}

/** Reads an owner's change feed (`GET /v1/run/stream`). */
export class RunChangeRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** The id of the latest change of any owner; 0 when there is none. */
  async latest(): Promise<number> {
    const row = await this.prisma.runChange.findFirst({
      orderBy: { id: "desc" },
      select: { id: true },
    });
    return row?.id ?? 0;
  }

  /**
   * The changes after `after`, oldest first: up to `limit` of all owners' (the ids are one
   * sequence), so that a reader can tell a gap (a change not yet committed, or rolled back) from
   * another owner's change. Only the owner's come with their run, as it is now.
   */
  async after(owner: string, after: number, limit: number): Promise<RunChangeEntry[]> {
    const changes = await this.prisma.runChange.findMany({
      where: { id: { gt: after } },
      orderBy: { id: "asc" },
      take: limit,
      select: { id: true, owner: true, runId: true },
    });
    const owned = changes.filter((change) => change.owner === owner);
    const runs =
      owned.length === 0
        ? []
        : await this.prisma.run.findMany({
            where: { owner, id: { in: [...new Set(owned.map((change) => change.runId))] } },
          });
    const byId = new Map(runs.map((run) => [run.id, toRunSession(run)]));
    return changes.map((change) => ({ id: change.id, run: byId.get(change.runId) ?? null }));
  }
}
