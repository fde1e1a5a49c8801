import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Clock } from "../../domain/clock.js";
import type { Repositories } from "../../repositories.js";
import {
  openTestRepositories,
  type TestRepositories,
} from "../../test-support/test-repositories.js";
import type { Database } from "../database.js";

// On TEST_FLAVOUR's database: the claim is the one statement written per flavour.

let opened: TestRepositories;
let db: Database;
let repos: Repositories;
let now: Date;
const clock: Clock = { now: () => now };

beforeEach(async () => {
  now = new Date("2026-11-22T10:00:00.000Z");
  opened = await openTestRepositories(clock);
  ({ db, repos } = opened);
});
afterEach(async () => {
  await opened.close();
});

/** Queues `count` runs, one second apart, and returns their ids oldest first. */
async function queue(count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    now = new Date(now.getTime() + 1000);
    const run = await repos.runs.create({
      owner: "alice",
      skill: { id: "skill_a", name: "A" },
      inputs: { i },
    });
    ids.push(run.id);
  }
  return ids;
}

describe("claiming runs", () => {
  it("takes the oldest queued run, holds it with a lease, and records run_claimed", async () => {
    const [oldest] = await queue(3);
    const claimed = await repos.runExecution.claim("worker-1", 30_000);
    expect(claimed).toMatchObject({ id: oldest, skillId: "skill_a", inputs: { i: 0 }, attempt: 1 });
    const row = await db.prisma.run.findUnique({ where: { id: oldest as string } });
    expect(row).toMatchObject({ state: "play", workerId: "worker-1", attempts: 1 });
    expect(row?.leaseExpiresAt?.toISOString()).toBe(new Date(now.getTime() + 30_000).toISOString());
    const events = await db.prisma.runEvent.findMany({ where: { runId: oldest as string } });
    expect(events.map((e) => e.type)).toEqual(["run_claimed"]);
  });

  it("gives concurrent claims different runs, each once, and nothing when the queue is empty", async () => {
    const ids = await queue(5);
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, i) => repos.runExecution.claim(`worker-${i}`, 30_000)),
    );
    const claimed = claims.filter((c) => c !== null).map((c) => c.id);
    expect(claimed.sort()).toEqual([...ids].sort());
    expect(await repos.runExecution.claim("worker-late", 30_000)).toBeNull();
    const events = await db.prisma.runEvent.count({ where: { type: "run_claimed" } });
    expect(events).toBe(5);
  });

  it("hands over a run whose stored definition is not JSON without one, so that it fails instead of blocking the queue", async () => {
    const [first, second] = (await queue(2)) as [string, string];
    await db.prisma.skill.updateMany({ where: { id: "skill_a" }, data: { definition: "{" } });
    // The worker fails a run without a usable definition, naming its skill (execute-run.ts).
    expect(await repos.runExecution.claim("worker-1", 30_000)).toMatchObject({
      id: first,
      definition: null,
    });
    expect(await repos.runExecution.claim("worker-1", 30_000)).toMatchObject({ id: second });
  });
});

describe("fencing: a worker writes about a run only while it holds it", () => {
  const event = (runId: string, type: "log" | "run_finished", message: string) => ({
    runId,
    at: now,
    type,
    ...(type === "log" ? { level: "info" as const } : {}),
    message,
  });

  it("drops a stale worker's late events, data and ending once another worker recovered the run", async () => {
    const [id] = (await queue(1)) as [string];
    const first = { runId: id, workerId: "worker-1" };
    await repos.runExecution.claim("worker-1", 1000);
    expect(
      await repos.runExecution.record(first, {
        events: [event(id, "log", "early")],
        data: { n: 1 },
      }),
    ).toBe(true);
    // worker-1 stops renewing; its lease lapses and the run is recovered and claimed by worker-2.
    now = new Date(now.getTime() + 5000);
    expect(await repos.runExecution.recoverLost(2)).toBe(1);
    expect(await repos.runExecution.claim("worker-2", 30_000)).toMatchObject({ id, attempt: 2 });
    const second = { runId: id, workerId: "worker-2" };
    const before = await db.prisma.runEvent.findMany({
      where: { runId: id },
      orderBy: { id: "asc" },
    });

    // worker-1 wakes up and goes on as if it still held the run.
    expect(
      await repos.runExecution.record(first, {
        events: [event(id, "log", "late")],
        data: { n: 99 },
      }),
    ).toBe(false);
    expect(await repos.runExecution.record(first, { events: [event(id, "log", "later")] })).toBe(
      false,
    );
    const finished = event(id, "run_finished", "stale ending");
    expect(await repos.runExecution.end(first, "finish", { n: 99 }, finished)).toBe(false);
    expect(await repos.runExecution.release(first, event(id, "log", "released"))).toBe(false);

    const after = await db.prisma.runEvent.findMany({
      where: { runId: id },
      orderBy: { id: "asc" },
    });
    expect(after).toEqual(before);
    const row = await db.prisma.run.findUnique({ where: { id } });
    expect(row).toMatchObject({ state: "play", workerId: "worker-2", data: null, endTime: null });

    // The holder's own writes still land.
    expect(
      await repos.runExecution.record(second, {
        events: [event(id, "log", "mine")],
        data: { n: 2 },
      }),
    ).toBe(true);
    const last = await db.prisma.runEvent.findFirst({
      where: { runId: id },
      orderBy: { id: "desc" },
    });
    expect(last).toMatchObject({ type: "log", message: "mine" });
  });

  it("records where a run cancelled as it ended stopped, instead of its ending", async () => {
    const [id] = (await queue(1)) as [string];
    await repos.runExecution.claim("worker-1", 30_000);
    const holder = { runId: id, workerId: "worker-1" };
    // The cancel lands between the run's last step and the worker's ending.
    expect(await repos.runs.cancel("alice", id)).toBe("cancel");
    const last = {
      runId: id,
      at: now,
      type: "log" as const,
      level: "info" as const,
      message: "last",
    };
    const finished = { runId: id, at: now, type: "run_finished" as const, durationMs: 1200 };
    expect(
      await repos.runExecution.endOrRecordCancel(holder, "finish", { done: true }, finished, [
        last,
      ]),
    ).toBe(false);
    const row = await db.prisma.run.findUnique({ where: { id } });
    expect(row?.state).toBe("cancel");
    expect(row?.data ?? "").not.toContain("done");
    const events = await db.prisma.runEvent.findMany({
      where: { runId: id },
      orderBy: { id: "asc" },
    });
    expect(events.map((e) => [e.type, e.message])).toEqual([
      ["run_claimed", expect.any(String)],
      ["log", "last"],
      ["run_cancelled", "the run was cancelled as it ended"],
    ]);
    // Taken from this worker rather than cancelled: nothing of it is written.
    const [other] = (await queue(1)) as [string];
    await repos.runExecution.claim("worker-1", 30_000);
    await db.prisma.run.update({ where: { id: other }, data: { workerId: "worker-2" } });
    const otherHolder = { runId: other, workerId: "worker-1" };
    const otherLast = { ...last, runId: other };
    const otherFinished = { ...finished, runId: other };
    expect(
      await repos.runExecution.endOrRecordCancel(otherHolder, "finish", {}, otherFinished, [
        otherLast,
      ]),
    ).toBe(false);
    const otherEvents = await db.prisma.runEvent.count({ where: { runId: other } });
    expect(otherEvents).toBe(1);
  });

  it("records where a cancelled run stopped, but not for a worker that never held it", async () => {
    const [id] = (await queue(1)) as [string];
    await repos.runExecution.claim("worker-1", 30_000);
    expect(await repos.runs.cancel("alice", id)).toBe("cancel");
    const stopped = { runId: id, at: now, type: "run_cancelled" as const, message: "stopped" };
    expect(
      await repos.runExecution.record({ runId: id, workerId: "worker-1" }, { events: [stopped] }),
    ).toBe(false);
    expect(
      await repos.runExecution.recordCancelled({ runId: id, workerId: "worker-2" }, stopped),
    ).toBe(false);
    expect(
      await repos.runExecution.recordCancelled({ runId: id, workerId: "worker-1" }, stopped),
    ).toBe(true);
    const types = await db.prisma.runEvent.findMany({
      where: { runId: id },
      orderBy: { id: "asc" },
    });
    expect(types.map((e) => e.type)).toEqual(["run_claimed", "run_cancelled"]);
  });
});
