import { parseSkillDefinition } from "@skillrun/engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../src/db/database.js";
import { systemClock } from "../src/domain/clock.js";
import { createRepositories, type Repositories } from "../src/repositories.js";
import { skillRecordOf } from "../src/skills/import-skills.js";
import { createTestDatabase, type TestDatabase } from "../src/test-support/test-database.js";
import { testSecretBox } from "../src/test-support/test-secrets.js";
import { InProcessRunSignals } from "../src/worker/in-process-run-signals.js";
import { type SkillrunProcess, startWorkerProcess } from "./support/skillrun-process.js";

/**
 * The fair queue's limits across processes (always on PostgreSQL): two worker processes with
 * eight slots between them claim from one database, and neither OWNER_MAX_RUNNING nor a skill's
 * concurrency is ever passed, however their claims interleave.
 */

const OWNER_MAX_RUNNING = 3;

const HELD_SKILL = `
id: skill_held
name: Held
concurrency: 2
steps:
  - wait: 300ms
`;

const FREE_SKILL = `
id: skill_free
name: Free
steps:
  - wait: 300ms
`;

let database: TestDatabase;
let db: Database;
let repos: Repositories;
const workers: SkillrunProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase("postgres");
  db = await openDatabase(database.url);
  // The workers poll (every 50 ms): signals of this process do not reach them.
  repos = createRepositories(db, systemClock, new InProcessRunSignals(), testSecretBox());
  const records = [HELD_SKILL, FREE_SKILL].map((yaml) =>
    skillRecordOf(parseSkillDefinition(yaml, "fair-queue.yaml")),
  );
  await repos.skills.importAll("alice", records);
  const env = { WORKER_CONCURRENCY: "4", OWNER_MAX_RUNNING: String(OWNER_MAX_RUNNING) };
  workers.push(...(await Promise.all([1, 2].map(() => startWorkerProcess(database.url, env)))));
}, 120_000);

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop()));
  await db?.close();
  await database?.drop();
});

async function queue(skillId: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await repos.runs.create({
      owner: "alice",
      skill: { id: skillId, name: skillId },
      inputs: {},
      concurrency: skillId === "skill_held" ? { limit: 2, key: null } : null,
    });
  }
}

describe("two worker processes on one PostgreSQL", () => {
  it("never run more of an owner's runs, or of a skill's, than the limits allow", async () => {
    await queue("skill_held", 8);
    await queue("skill_free", 8);
    let mostOfOwner = 0;
    let mostOfHeld = 0;
    // Samples what holds a worker until every run has ended.
    await expect
      .poll(
        async () => {
          const holding = await db.prisma.run.findMany({
            where: { state: { in: ["play", "pause"] } },
            select: { skillId: true },
          });
          mostOfOwner = Math.max(mostOfOwner, holding.length);
          const held = holding.filter((run) => run.skillId === "skill_held").length;
          mostOfHeld = Math.max(mostOfHeld, held);
          return db.prisma.run.count({ where: { state: { not: "finish" } } });
        },
        { timeout: 60_000, interval: 20 },
      )
      .toBe(0);
    expect(mostOfOwner).toBeLessThanOrEqual(OWNER_MAX_RUNNING);
    expect(mostOfHeld).toBeLessThanOrEqual(2);
    // The limits were reached, so they were what held the runs back, not a lack of them.
    expect(mostOfOwner).toBe(OWNER_MAX_RUNNING);
    const workersUsed = await db.prisma.runEvent.findMany({
      where: { type: "run_claimed" },
      select: { detail: true },
    });
    expect(new Set(workersUsed.map((event) => event.detail)).size).toBe(2);
  }, 90_000);
});
