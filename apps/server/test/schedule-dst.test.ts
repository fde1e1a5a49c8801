import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Scheduler } from "../src/schedules/scheduler.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { skillRecord } from "./support/http.js";
import { newSchedule, runsOfSchedule, TestClock } from "./support/schedules.js";

/**
 * Schedules in Europe/Berlin through both DST changes of 2026, on a clock the test moves a
 * minute at a time with a scheduler round at each: a time the spring change skips fires at the
 * first valid time after the gap, once; a time the autumn change repeats fires once, at its
 * first occurrence. (Berlin: 29 March 02:00 CET → 03:00 CEST at 01:00 UTC; 25 October 03:00 CEST
 * → 02:00 CET at 01:00 UTC.)
 */

const clock = new TestClock("2026-03-28T23:00:00.000Z");
let server: TestServer;
let scheduler: Scheduler;
let key: string;

beforeAll(async () => {
  server = await startTestServer({ clock, scheduler: {} });
  scheduler = server.scheduler as Scheduler;
  // Rounds are driven by the test, a minute of the clock apart.
  await scheduler.stop();
  key = await server.keyFor("alice");
  await server.importSkills("alice", [skillRecord("skill_dst", "DST")]);
});

afterAll(async () => {
  await server?.close();
});

/** Moves the clock to `until` a minute at a time, a scheduler round at each minute. */
async function runUntil(until: string): Promise<void> {
  while (clock.now().getTime() < Date.parse(until)) {
    clock.advance(60_000);
    await scheduler.runDue();
  }
}

async function scheduledTimes(id: string): Promise<(string | undefined)[]> {
  return (await runsOfSchedule(server, id)).map((run) => run.scheduledAt?.toISOString());
}

function berlin(cron: string): Promise<string> {
  return newSchedule(server, key, {
    skill_id: "skill_dst",
    cron,
    timezone: "Europe/Berlin",
    overlap: "allow",
  });
}

describe("Europe/Berlin", () => {
  it("spring forward: the skipped 02:30 fires at 03:00 CEST, the skipped half hours once", async () => {
    clock.set("2026-03-28T23:00:00.000Z");
    const fixed = await berlin("30 2 * * *");
    const halfHourly = await berlin("*/30 * * * *");
    await runUntil("2026-03-29T02:10:00.000Z");
    expect(await scheduledTimes(fixed)).toEqual(["2026-03-29T01:00:00.000Z"]);
    expect(await scheduledTimes(halfHourly)).toEqual([
      "2026-03-28T23:30:00.000Z",
      "2026-03-29T00:00:00.000Z", // 01:00 CET
      "2026-03-29T00:30:00.000Z", // 01:30 CET
      "2026-03-29T01:00:00.000Z", // 03:00 CEST: 02:00 and 02:30 do not exist
      "2026-03-29T01:30:00.000Z", // 03:30 CEST
      "2026-03-29T02:00:00.000Z", // 04:00 CEST
    ]);
  });

  it("fall back: the repeated 02:30 fires once, at its first occurrence; the repeated hour once", async () => {
    clock.set("2026-10-24T23:10:00.000Z");
    const fixed = await berlin("30 2 * * *");
    const halfHourly = await berlin("*/30 * * * *");
    await runUntil("2026-10-25T02:40:00.000Z");
    expect(await scheduledTimes(fixed)).toEqual(["2026-10-25T00:30:00.000Z"]);
    expect(await scheduledTimes(halfHourly)).toEqual([
      "2026-10-24T23:30:00.000Z", // 01:30 CEST
      "2026-10-25T00:00:00.000Z", // 02:00 CEST
      "2026-10-25T00:30:00.000Z", // 02:30 CEST; 02:00 and 02:30 CET are not fired again
      "2026-10-25T02:00:00.000Z", // 03:00 CET
      "2026-10-25T02:30:00.000Z", // 03:30 CET
    ]);
  });
});
