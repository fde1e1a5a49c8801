import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../db/database.js";
import { runCommitsFor } from "../db/runs/commit.js";
import { INSERT_RUN_CHANGE } from "../db/runs/sql/changes.js";
import { createTestDatabase, type TestDatabase } from "../test-support/test-database.js";
import { PostgresRunSignals } from "./postgres-run-signals.js";

/**
 * PostgreSQL's run signals between processes (always on PostgreSQL, whatever TEST_FLAVOUR says):
 * every process hears of queued runs; only those serving live streams hear what wakes them.
 */

let testDatabase: TestDatabase;
let db: Database;
let serving: PostgresRunSignals;
let working: PostgresRunSignals;

beforeAll(async () => {
  testDatabase = await createTestDatabase("postgres");
  db = await openDatabase(testDatabase.url);
  const logger = pino({ level: "silent" });
  serving = await PostgresRunSignals.connect(db, logger, { streams: true });
  working = await PostgresRunSignals.connect(db, logger, { streams: false });
  const at = new Date();
  await db.prisma.skill.create({
    data: {
      owner: "alice",
      id: "skill_a",
      name: "A",
      inputs: "[]",
      definition: "{}",
      definitionHash: "0",
      createdAt: at,
      lastModifiedAt: at,
    },
  });
});

afterAll(async () => {
  await serving?.close();
  await working?.close();
  await db?.close();
  await testDatabase?.drop();
});

function heard(subscribe: (listener: (value?: unknown) => void) => () => void): unknown[] {
  const values: unknown[] = [];
  subscribe((value) => values.push(value ?? true));
  return values;
}

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("not heard within 5 s");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("PostgreSQL run signals", () => {
  it("tell every process of a new run, in the statement that writes it; stream wakes only where streams are served", async () => {
    const queued = [heard((l) => serving.onQueued(l)), heard((l) => working.onQueued(l))];
    const wakes = [heard((l) => serving.onStreamWake(l)), heard((l) => working.onStreamWake(l))];
    const at = new Date();
    const run = { id: "run_signals", owner: "alice" };
    await runCommitsFor(db, serving).insert(
      [
        { sql: INSERT_RUN_CHANGE, params: [run.owner, run.id, at] },
        {
          sql: `INSERT INTO runs (id, owner, skill_id, name, state, environment, inputs,
              secret_inputs, data, created_at, start_time)
            VALUES (?, ?, 'skill_a', NULL, NULL, 'cloud', '{}', NULL, NULL, ?, ?)`,
          params: [run.id, run.owner, at, at],
        },
      ],
      { type: "queued" },
    );
    // Both rows were written, by the one statement.
    expect(await db.prisma.run.count({ where: { id: run.id } })).toBe(1);
    expect(await db.prisma.runChange.count({ where: { runId: run.id } })).toBe(1);
    await until(() => queued.every((values) => values.length === 1) && wakes[0]?.length === 1);
    expect(wakes[0]).toEqual(["changes"]);
    // What one commit tells comes together: had the worker listened for streams, it would have
    // heard by now, with the queued run; a moment more leaves no doubt.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(wakes[1]).toEqual([]);
  });
});
