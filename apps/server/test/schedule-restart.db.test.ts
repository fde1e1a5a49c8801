import { afterAll, expect, it } from "vitest";
import type { Scheduler } from "../src/schedules/scheduler.js";
import { createTestDatabase, type TestDatabase } from "../src/test-support/test-database.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { skillRecord } from "./support/http.js";
import { newSchedule, runsOfSchedule, TestClock, ticksOf } from "./support/schedules.js";

/**
 * A server restarted on its database fires no tick again: what a tick fired is in the
 * schedule's row, not in the process.
 */

const clock = new TestClock("2026-12-01T10:00:30.000Z");
let database: TestDatabase | undefined;
const started: TestServer[] = [];

async function start(url: string): Promise<TestServer> {
  const server = await startTestServer({
    clock,
    databaseUrl: url,
    scheduler: {},
  });
  started.push(server);
  // The loop's own round at start could read the clock after the test moved it: the test drives
  // every round itself.
  await server.scheduler?.stop();
  return server;
}

afterAll(async () => {
  await Promise.all(started.map((server) => server.close()));
  await database?.drop();
});

it("fires no tick twice across a restart", async () => {
  database = await createTestDatabase();
  const before = await start(database.url);
  const key = await before.keyFor("alice");
  await before.importSkills("alice", [skillRecord("skill_tick", "Tick")]);
  const id = await newSchedule(before, key, {
    skill_id: "skill_tick",
    cron: "* * * * *",
    overlap: "allow",
    catchup: "10m",
  });
  clock.set("2026-12-01T10:01:00.000Z");
  expect(await (before.scheduler as Scheduler).runDue()).toBe(1);
  await before.close();

  // Back at the same moment: the tick it fired is not fired again, with a catch-up window or not.
  const after = await start(database.url);
  expect(await (after.scheduler as Scheduler).runDue()).toBe(0);
  clock.set("2026-12-01T10:02:05.000Z");
  expect(await (after.scheduler as Scheduler).runDue()).toBe(1);
  expect(await (after.scheduler as Scheduler).runDue()).toBe(0);
  const runs = await runsOfSchedule(after, id);
  expect(runs.map((run) => run.scheduledAt?.toISOString())).toEqual([
    "2026-12-01T10:01:00.000Z",
    "2026-12-01T10:02:00.000Z",
  ]);
  expect((await ticksOf(after, key, id)).map((tick) => tick.outcome)).toEqual(["fired", "fired"]);
});
