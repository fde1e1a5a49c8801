import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Clock } from "../../domain/clock.js";
import type { Repositories } from "../../repositories.js";
import {
  openTestRepositories,
  type TestRepositories,
} from "../../test-support/test-repositories.js";
import type { Database } from "../database.js";

// On TEST_FLAVOUR's database: senders in many processes take each delivery once.

let opened: TestRepositories;
let db: Database;
let repos: Repositories;
let now: Date;
const clock: Clock = { now: () => now };

beforeEach(async () => {
  now = new Date("2026-11-26T10:00:00.000Z");
  opened = await openTestRepositories(clock);
  ({ db, repos } = opened);
});
afterEach(async () => {
  await opened.close();
});

/** Ends `count` runs of alice's, each as a worker would: one delivery per run to `webhookId`. */
async function endRuns(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await repos.runs.create({ owner: "alice", skill: { id: "skill_a", name: "A" }, inputs: {} });
    const run = await repos.runExecution.claim("worker-1", 60_000);
    if (run === null) throw new Error("no run to claim");
    const holder = { runId: run.id, workerId: "worker-1" };
    const event = { runId: run.id, at: now, type: "run_finished" as const };
    expect(await repos.runExecution.end(holder, "finish", {}, event)).toBe(true);
  }
}

describe("webhook deliveries", () => {
  it("are written with the run's ending, one per subscribed endpoint, the body the run as it ended", async () => {
    const all = await repos.webhooks.create("alice", "https://1.1.1.1/all", ["run.finished"]);
    await repos.webhooks.create("alice", "https://1.1.1.1/failed", ["run.failed"]);
    await repos.webhooks.create("bob", "https://1.1.1.1/bob", ["run.finished"]);
    await endRuns(1);
    const rows = await db.prisma.webhookDelivery.findMany();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ webhookId: all?.id, event: "run.finished", state: "pending" });
    const run = await repos.runs.get("alice", rows[0]?.runId ?? "");
    expect(JSON.parse(rows[0]?.body ?? "")).toEqual({ ...run, video_url: null });
  });

  it("are taken by one sender each, however many ask at once, and again only after the lease", async () => {
    await repos.webhooks.create("alice", "https://1.1.1.1/hook", ["run.finished"]);
    await endRuns(6);
    // Rounds of eight senders at once, until none finds anything: each delivery taken once.
    const claims: Awaited<ReturnType<typeof repos.webhookDeliveries.claimDue>> = [];
    for (let round = 0; round < 6; round++) {
      const found = await Promise.all(
        Array.from({ length: 8 }, () => repos.webhookDeliveries.claimDue(4, 30_000)),
      );
      if (found.flat().length === 0) break;
      claims.push(...found.flat());
    }
    const taken = claims.map((delivery) => delivery.id);
    expect(taken).toHaveLength(6);
    expect(new Set(taken).size).toBe(6);
    expect(await repos.webhookDeliveries.claimDue(10, 30_000)).toEqual([]);

    // A sender lost mid-send: past its lease another takes the delivery, and the lost one's
    // late outcome is not recorded.
    const [lost] = claims;
    now = new Date(now.getTime() + 30_001);
    const retaken = await repos.webhookDeliveries.claimDue(10, 30_000);
    expect(retaken.map((d) => d.id).sort()).toEqual([...taken].sort());
    const attempt = { at: now, status: 200, latencyMs: 5, response: null, error: null };
    expect(
      await repos.webhookDeliveries.recordAttempt(lost as never, attempt, { state: "delivered" }),
    ).toBe(false);
    const again = retaken.find((d) => d.id === lost?.id);
    expect(
      await repos.webhookDeliveries.recordAttempt(again as never, attempt, { state: "delivered" }),
    ).toBe(true);
    expect(await db.prisma.webhookAttempt.count()).toBe(1);
  });

  it("are not written for a disabled endpoint, nor for a change that did not happen", async () => {
    const hook = await repos.webhooks.create("alice", "https://1.1.1.1/hook", ["run.cancelled"]);
    await db.prisma.webhook.update({ where: { id: hook?.id }, data: { disabledAt: now } });
    const run = await repos.runs.create({
      owner: "alice",
      skill: { id: "skill_a", name: "A" },
      inputs: {},
    });
    expect(await repos.runs.cancel("alice", run.id)).toBe("cancel");
    expect(await db.prisma.webhookDelivery.count()).toBe(0);

    await db.prisma.webhook.update({ where: { id: hook?.id }, data: { disabledAt: null } });
    // Cancelling a cancelled run changes nothing: no second delivery.
    expect(await repos.runs.cancel("alice", run.id)).toBe("cancel");
    expect(await db.prisma.webhookDelivery.count()).toBe(0);
  });
});
