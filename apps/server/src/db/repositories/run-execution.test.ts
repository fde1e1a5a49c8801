import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Clock } from "../../domain/clock.js";
import { createRepositories, type Repositories } from "../../repositories.js";
import { createTestDatabase, type TestDatabase } from "../../test-support/test-database.js";
import { InProcessRunSignals } from "../../worker/in-process-run-signals.js";
import { type Database, openDatabase } from "../database.js";

// On TEST_FLAVOUR's database: the claim is the one statement written per flavour.

let database: TestDatabase;
let db: Database;
let repos: Repositories;
let now: Date;
const clock: Clock = { now: () => now };

beforeEach(async () => {
  database = await createTestDatabase();
  db = await openDatabase(database.url);
  repos = createRepositories(db, clock, new InProcessRunSignals(db.prisma));
  now = new Date("2026-11-22T10:00:00.000Z");
  await repos.skills.importAll("alice", [
    {
      id: "skill_a",
      name: "A",
      description: null,
      inputs: [],
      definition: {},
      definitionHash: "h",
    },
  ]);
});
afterEach(async () => {
  await db.close();
  await database.drop();
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
});
