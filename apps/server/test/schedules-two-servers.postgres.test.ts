import { afterAll, beforeAll, expect, it } from "vitest";
import type { Scheduler } from "../src/schedules/scheduler.js";
import { createTestDatabase, type TestDatabase } from "../src/test-support/test-database.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { skillRecord } from "./support/http.js";
import { newSchedule, TestClock } from "./support/schedules.js";

/**
 * Two servers, each with its scheduler, on one PostgreSQL database (always, whatever TEST_FLAVOUR
 * says): their rounds race for the same ticks, and each tick fires exactly once.
 */

const SCHEDULES = 8;
const SECONDS = 20;

const clock = new TestClock("2026-12-01T10:00:00.500Z");
let database: TestDatabase;
let servers: TestServer[] = [];

beforeAll(async () => {
  database = await createTestDatabase("postgres");
  const options = {
    clock,
    databaseUrl: database.url,
    scheduler: {},
    env: { SCHEDULE_MIN_INTERVAL_SECONDS: "1" },
  };
  const first = await startTestServer(options);
  servers = [first, await startTestServer(options)];
  // Rounds are driven by the test, both servers' at once.
  await Promise.all(servers.map((server) => server.scheduler?.stop()));
}, 60_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await database?.drop();
});

it("fires each tick once, whichever server's round claims it", async () => {
  const [a, b] = servers as [TestServer, TestServer];
  const key = await a.keyFor("alice");
  await a.importSkills("alice", [skillRecord("skill_tick", "Tick")]);
  const ids: string[] = [];
  for (let i = 0; i < SCHEDULES; i++) {
    ids.push(
      await newSchedule(a, key, { skill_id: "skill_tick", cron: "* * * * * *", overlap: "allow" }),
    );
  }
  const rounds = servers.map((server) => server.scheduler as Scheduler);
  let written = 0;
  const perServer = [0, 0];
  for (let second = 1; second <= SECONDS; second++) {
    clock.advance(1000);
    // Two rounds of each server at the same moment.
    const counts = await Promise.all([...rounds, ...rounds].map((s) => s.runDue()));
    counts.forEach((count, i) => {
      perServer[i % 2] = (perServer[i % 2] ?? 0) + count;
    });
    written += counts.reduce((sum, count) => sum + count, 0);
  }
  expect(written).toBe(SCHEDULES * SECONDS);
  const groups = await b.db.prisma.run.groupBy({
    by: ["scheduleId", "scheduledAt"],
    where: { scheduleId: { in: ids } },
    _count: { _all: true },
  });
  expect(groups).toHaveLength(SCHEDULES * SECONDS);
  expect(groups.filter((group) => group._count._all !== 1)).toEqual([]);
  const ticks = await b.db.prisma.scheduleTick.count({ where: { scheduleId: { in: ids } } });
  expect(ticks).toBe(SCHEDULES * SECONDS);
  console.info(`ticks written by each server: ${perServer.join(" and ")}`);
}, 120_000);
