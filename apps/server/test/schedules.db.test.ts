import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Scheduler } from "../src/schedules/scheduler.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call, skillRecord } from "./support/http.js";
import {
  createSchedule,
  newSchedule,
  runsOfSchedule,
  TestClock,
  ticksOf,
} from "./support/schedules.js";

/**
 * Schedules over HTTP, their ticks fired by the scheduler on a clock the test moves (its rounds
 * driven by the test), on both databases: what is written, what a tick claims, what a client
 * sees.
 */

const clock = new TestClock("2026-12-01T08:59:30.000Z");
let server: TestServer;
let scheduler: Scheduler;
let key: string;

const SKILL = "skill_report";
const MINUTELY = { skill_id: SKILL, cron: "* * * * *", inputs: { region: "eu" } };

beforeAll(async () => {
  server = await startTestServer({ clock, scheduler: {}, random: () => 0.5 });
  scheduler = server.scheduler as Scheduler;
  // Rounds are driven by the test: the loop's own would read the clock wherever the test left it.
  await scheduler.stop();
  key = await server.keyFor("alice");
  await server.importSkills("alice", [
    skillRecord(SKILL, "Report", [
      { id: "in_region", json_key: "region", data_type: "string", required: true },
      {
        id: "in_token",
        json_key: "token",
        data_type: "string",
        required: false,
        default: "none",
        secret: true,
      },
    ]),
  ]);
});

afterAll(async () => {
  await server?.close();
});

// Each test's schedules only: a round fires every schedule that is due.
afterEach(async () => {
  await server.db.prisma.schedule.deleteMany({});
});

describe("creating a schedule", () => {
  it("answers 201 with the next five times in its zone, secret inputs sealed", async () => {
    const reply = await createSchedule(server, key, {
      skill_id: SKILL,
      cron: "0 9 * * MON-FRI",
      timezone: "Europe/Berlin",
      inputs: { region: "eu", token: "tok_live_secret" },
      overlap: "buffer_one",
      catchup: "1h",
      jitter: "30s",
      pause_after_failures: 3,
    });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body).toMatchObject({
      skill_id: SKILL,
      owner: "alice",
      inputs: { region: "eu", token: "***" },
      cron: "0 9 * * MON-FRI",
      timezone: "Europe/Berlin",
      overlap: "buffer_one",
      catchup: "1h",
      jitter: "30s",
      paused: false,
      paused_reason: null,
      pause_after_failures: 3,
      failures_in_row: 0,
      last_run_id: null,
      // 09:00 in Berlin today (08:00 UTC) has passed.
      next_runs: [
        "2026-12-02T09:00:00.000+01:00",
        "2026-12-03T09:00:00.000+01:00",
        "2026-12-04T09:00:00.000+01:00",
        "2026-12-07T09:00:00.000+01:00",
        "2026-12-08T09:00:00.000+01:00",
      ],
    });
    const id = (reply.body as { id: string }).id;
    expect(id).toMatch(/^sch_[0-9a-f-]{36}$/);
    const row = await server.db.prisma.schedule.findUniqueOrThrow({ where: { id } });
    expect(row.secretInputs).not.toBeNull();
    expect(JSON.stringify(row)).not.toContain("tok_live_secret");
    // The first tick fires half its jitter late (the test's random is 0.5).
    expect(row.fireAt?.getTime()).toBe((row.nextTickAt?.getTime() ?? 0) + 15_000);
  });

  it("refuses each bad field with a 422 at it, and writes nothing", async () => {
    const before = await server.db.prisma.schedule.count();
    const problems = async (body: Record<string, unknown>) => {
      const reply = await createSchedule(server, key, { ...MINUTELY, ...body });
      expect(reply.status, reply.text).toBe(422);
      return (reply.body as { detail: unknown[] }).detail;
    };
    expect(await problems({ timezone: "Mars/Olympus" })).toEqual([
      {
        loc: ["body", "timezone"],
        msg: 'Value error, unknown time zone "Mars/Olympus": give an IANA name such as Europe/Berlin or UTC',
        type: "value_error",
      },
    ]);
    expect(await problems({ cron: "61 * * * *" })).toEqual([
      {
        loc: ["body", "cron"],
        msg: "Value error, not a cron: Invalid value for minute: 61",
        type: "value_error",
      },
    ]);
    expect(await problems({ cron: "*/10 * * * * *" })).toEqual([
      {
        loc: ["body", "cron"],
        msg: "Value error, the cron fires 10s apart; schedules may fire at most every 1m (SCHEDULE_MIN_INTERVAL_SECONDS)",
        type: "value_error",
      },
    ]);
    expect(await problems({ cron: "0 0 30 2 *" })).toEqual([
      {
        loc: ["body", "cron"],
        msg: "Value error, the cron names no time to come",
        type: "value_error",
      },
    ]);
    expect(await problems({ jitter: "1m" })).toEqual([
      {
        loc: ["body", "jitter"],
        msg: "Value error, jitter must be shorter than the cron's shortest interval (1m), so that ticks keep their order",
        type: "value_error",
      },
    ]);
    expect(await problems({ catchup: "25h" })).toEqual([
      { loc: ["body", "catchup"], msg: "Value error, catchup is at most 24h", type: "value_error" },
    ]);
    // The inputs as POST /run/ checks them, with the timing's problems in the same answer.
    expect(await problems({ inputs: {}, timezone: "Nowhere" })).toEqual([
      { loc: ["body", "inputs", "region"], msg: "Field required", type: "missing" },
      expect.objectContaining({ loc: ["body", "timezone"] }),
    ]);
    expect(await problems({ overlap: "queue" })).toEqual([
      expect.objectContaining({ loc: ["body", "overlap"], type: "enum" }),
    ]);
    expect(await problems({ pause_after_failures: 0 })).toEqual([
      expect.objectContaining({ loc: ["body", "pause_after_failures"] }),
    ]);
    expect(await problems({ every: "minute" })).toEqual([
      expect.objectContaining({ loc: ["body", "every"] }),
    ]);
    const unknown = await createSchedule(server, key, { ...MINUTELY, skill_id: "skill_none" });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: "Skill not found" });
    expect(await server.db.prisma.schedule.count()).toBe(before);
  });

  it("keeps to SCHEDULES_PER_OWNER", async () => {
    const limited = await startTestServer({ env: { SCHEDULES_PER_OWNER: "2" } });
    try {
      const bob = await limited.keyFor("bob");
      await limited.importSkills("bob", [skillRecord("skill_b", "B")]);
      const body = { skill_id: "skill_b", cron: "0 * * * *" };
      await newSchedule(limited, bob, body);
      await newSchedule(limited, bob, body);
      const third = await createSchedule(limited, bob, body);
      expect(third.status).toBe(422);
      expect(third.body).toEqual({
        detail: [
          {
            loc: ["body"],
            msg: "Value error, an owner has at most 2 schedules (SCHEDULES_PER_OWNER); delete one first",
            type: "value_error",
          },
        ],
      });
    } finally {
      await limited.close();
    }
  });
});

describe("previewing a cron's next runs", () => {
  const preview = (json: Record<string, unknown>) =>
    call(server.origin, "POST", "/v1/schedule/next_runs", { key, json });

  it("gives the next runs a schedule of that cron and zone is created with, and writes nothing", async () => {
    // One on an hour Berlin skips shows the DST mapping: 02:30 on 28 March 2027 fires at 03:00 CEST.
    for (const [cron, timezone] of [
      ["0 9 * * MON-FRI", "Europe/Berlin"],
      ["30 2 28 3 *", "europe/berlin"],
      ["*/15 * * * *", "Asia/Kolkata"],
      ["0 0 1 * *", "UTC"],
    ] as const) {
      const shown = await preview({ cron, timezone });
      expect(shown.status, shown.text).toBe(200);
      const created = await createSchedule(server, key, { ...MINUTELY, cron, timezone });
      expect(created.status, created.text).toBe(201);
      const schedule = created.body as { cron: string; timezone: string; next_runs: string[] };
      expect(shown.body).toEqual({
        cron: schedule.cron,
        timezone: schedule.timezone,
        next_runs: schedule.next_runs,
      });
    }
    const berlin = await preview({ cron: "30 2 28 3 *", timezone: "Europe/Berlin" });
    expect((berlin.body as { next_runs: string[] }).next_runs[0]).toBe(
      "2027-03-28T03:00:00.000+02:00",
    );
    const before = await server.db.prisma.schedule.count();
    await preview({ cron: "0 * * * *" });
    expect(await server.db.prisma.schedule.count()).toBe(before);
  });

  it("refuses what creating would refuse, each at its field", async () => {
    const cases: [Record<string, unknown>, (string | number)[], RegExp][] = [
      [{ cron: "0 * * * *", timezone: "Mars/Olympus" }, ["body", "timezone"], /unknown time zone/],
      [{ cron: "* * * * * *" }, ["body", "cron"], /fires 1s apart/],
      [{ cron: "0 0 30 2 *" }, ["body", "cron"], /names no time to come/],
      [{ cron: "not a cron" }, ["body", "cron"], /./],
      [{ cron: "" }, ["body", "cron"], /at least 1 character/],
      [{ cron: "0 * * * *", extra: 1 }, ["body", "extra"], /./],
      [{ cron: "x".repeat(201) }, ["body", "cron"], /at most 200/],
    ];
    for (const [body, loc, message] of cases) {
      const reply = await preview(body);
      expect(reply.status, JSON.stringify(body)).toBe(422);
      const detail = (reply.body as { detail: { loc: unknown[]; msg: string }[] }).detail;
      expect(
        detail.map((issue) => issue.loc),
        JSON.stringify(body),
      ).toEqual([loc]);
      expect(detail[0]?.msg).toMatch(message);
    }
  });
});

describe("ticks", () => {
  it("fire once each, as runs that carry schedule_id and scheduled_for", async () => {
    clock.set("2026-12-01T10:00:30.000Z");
    const id = await newSchedule(server, key, { ...MINUTELY, overlap: "allow" });
    expect(await scheduler.runDue()).toBe(0);
    clock.set("2026-12-01T10:01:00.000Z");
    expect(await scheduler.runDue()).toBe(1);
    // The same tick again, and another server's round at the same moment: nothing.
    expect(await scheduler.runDue()).toBe(0);
    clock.set("2026-12-01T10:02:01.000Z");
    expect(await scheduler.runDue()).toBe(1);
    const runs = await runsOfSchedule(server, id);
    expect(runs.map((run) => run.scheduledAt?.toISOString())).toEqual([
      "2026-12-01T10:01:00.000Z",
      "2026-12-01T10:02:00.000Z",
    ]);
    const run = await call(server.origin, "GET", `/v1/run/${runs[1]?.id}`, { key });
    expect(run.body).toMatchObject({
      schedule_id: id,
      scheduled_for: "2026-12-01T10:02:00.000Z",
      inputs: { region: "eu", token: "***" },
      state: null,
    });
    expect(await ticksOf(server, key, id)).toEqual([
      {
        scheduled_for: "2026-12-01T10:02:00.000+00:00",
        at: "2026-12-01T10:02:01.000Z",
        outcome: "fired",
        run_id: runs[1]?.id,
        reason: null,
        message: null,
        manual: false,
      },
      expect.objectContaining({ outcome: "fired", run_id: runs[0]?.id }),
    ]);
    const schedule = await call(server.origin, "GET", `/v1/schedule/${id}`, { key });
    expect(schedule.body).toMatchObject({
      last_run_id: runs[1]?.id,
      next_runs: expect.arrayContaining(["2026-12-01T10:03:00.000+00:00"]),
    });
  });

  it("overlap skip starts nothing while the last run is open; buffer_one starts it after", async () => {
    clock.set("2026-12-02T10:00:30.000Z");
    const skip = await newSchedule(server, key, MINUTELY);
    const buffer = await newSchedule(server, key, { ...MINUTELY, overlap: "buffer_one" });
    clock.set("2026-12-02T10:01:00.000Z");
    expect(await scheduler.runDue()).toBe(2);
    // No worker here: the first runs stay queued, so they are open at the next ticks.
    clock.set("2026-12-02T10:02:00.000Z");
    expect(await scheduler.runDue()).toBe(2);
    clock.set("2026-12-02T10:03:00.000Z");
    expect(await scheduler.runDue()).toBe(2);
    const [first] = await runsOfSchedule(server, skip);
    expect((await ticksOf(server, key, skip)).slice(0, 2)).toEqual([
      expect.objectContaining({
        scheduled_for: "2026-12-02T10:03:00.000+00:00",
        outcome: "skipped",
        reason: "overlap",
        message: `the last run ${first?.id} had not ended`,
      }),
      expect.objectContaining({ outcome: "skipped", reason: "overlap" }),
    ]);
    expect((await ticksOf(server, key, buffer)).map((t) => [t.outcome, t.reason])).toEqual([
      ["skipped", "overlap"],
      ["buffered", null],
      ["fired", null],
    ]);
    const [open] = await runsOfSchedule(server, buffer);
    await call(server.origin, "POST", `/v1/run/${open?.id}/cancel`, { key });
    expect(await scheduler.runDue()).toBe(1);
    const runs = await runsOfSchedule(server, buffer);
    expect(runs.map((run) => run.scheduledAt?.toISOString())).toEqual([
      "2026-12-02T10:01:00.000Z",
      "2026-12-02T10:02:00.000Z",
    ]);
    const buffered = (await ticksOf(server, key, buffer))[1];
    expect(buffered).toMatchObject({ outcome: "fired", run_id: runs[1]?.id });
    expect(await runsOfSchedule(server, skip)).toHaveLength(1);
  });

  it("after downtime fires at most the latest missed tick, and only within catchup", async () => {
    clock.set("2026-12-03T10:00:30.000Z");
    const none = await newSchedule(server, key, { ...MINUTELY, overlap: "allow" });
    const window = await newSchedule(server, key, { ...MINUTELY, overlap: "allow", catchup: "2m" });
    // Down from 10:00:30 to 10:06:45: six ticks pass unfired.
    clock.set("2026-12-03T10:06:45.000Z");
    expect(await scheduler.runDue()).toBe(2);
    expect(await runsOfSchedule(server, none)).toEqual([]);
    expect(await ticksOf(server, key, none)).toEqual([
      expect.objectContaining({
        scheduled_for: "2026-12-03T10:06:00.000+00:00",
        outcome: "skipped",
        reason: "missed",
        message:
          "no server fired it within 30s of its time (catchup 0); 5 earlier ticks, from 2026-12-03T10:01:00.000+00:00, passed while no server fired ticks",
      }),
    ]);
    const caught = await runsOfSchedule(server, window);
    expect(caught.map((run) => run.scheduledAt?.toISOString())).toEqual([
      "2026-12-03T10:06:00.000Z",
    ]);
    expect((await ticksOf(server, key, window)).map((t) => [t.outcome, t.reason])).toEqual([
      ["fired", null],
      ["skipped", "missed"],
    ]);
    // Both go on with the next tick, not the ones before.
    clock.set("2026-12-03T10:07:00.000Z");
    expect(await scheduler.runDue()).toBe(2);
    expect(await runsOfSchedule(server, none)).toHaveLength(1);
  });
});

describe("changing a schedule", () => {
  it("pauses, resumes from now, and changes the cron, each checked as at creation", async () => {
    clock.set("2026-12-04T10:00:30.000Z");
    const id = await newSchedule(server, key, MINUTELY);
    const patch = (json: Record<string, unknown>) =>
      call(server.origin, "PATCH", `/v1/schedule/${id}`, { key, json });
    const paused = await patch({ paused: true });
    expect(paused.status, paused.text).toBe(200);
    expect(paused.body).toMatchObject({ paused: true, paused_reason: "requested" });
    clock.set("2026-12-04T10:05:00.000Z");
    expect(await scheduler.runDue()).toBe(0);
    const resumed = await patch({ paused: false, cron: "*/5 * * * *", timezone: "Asia/Kolkata" });
    expect(resumed.body).toMatchObject({
      paused: false,
      paused_reason: null,
      cron: "*/5 * * * *",
      timezone: "Asia/Kolkata",
      next_runs: expect.arrayContaining(["2026-12-04T15:40:00.000+05:30"]),
    });
    // The tick at 10:05 passed while paused: not fired.
    expect(await scheduler.runDue()).toBe(0);
    const bad = await patch({ cron: "* * *", inputs: { region: 5 } });
    expect(bad.status).toBe(422);
    expect((bad.body as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc)).toEqual([
      ["body", "inputs", "region"],
      ["body", "cron"],
    ]);
    const unchanged = await call(server.origin, "GET", `/v1/schedule/${id}`, { key });
    expect(unchanged.body).toMatchObject({ cron: "*/5 * * * *", inputs: { region: "eu" } });
  });

  it("triggers a run now, also while paused, and deletes; another owner's is a 404", async () => {
    clock.set("2026-12-05T10:00:30.000Z");
    const id = await newSchedule(server, key, { ...MINUTELY, paused: true });
    const triggered = await call(server.origin, "POST", `/v1/schedule/${id}/trigger`, { key });
    expect(triggered.status, triggered.text).toBe(201);
    expect(triggered.body).toMatchObject({
      schedule_id: id,
      scheduled_for: "2026-12-05T10:00:30.000Z",
      state: null,
    });
    expect(await ticksOf(server, key, id)).toEqual([
      expect.objectContaining({ outcome: "fired", manual: true }),
    ]);
    const bob = await server.keyFor("bob");
    for (const [method, path] of [
      ["GET", `/v1/schedule/${id}`],
      ["PATCH", `/v1/schedule/${id}`],
      ["DELETE", `/v1/schedule/${id}`],
      ["POST", `/v1/schedule/${id}/trigger`],
      ["GET", `/v1/schedule/${id}/ticks`],
    ] as const) {
      const reply = await call(server.origin, method, path, {
        key: bob,
        ...(method === "PATCH" && { json: {} }),
      });
      expect(reply.status, `${method} ${path}`).toBe(404);
      expect(reply.body).toEqual({ detail: "Schedule not found" });
    }
    const list = await call(server.origin, "GET", "/v1/schedule/list", { key: bob });
    expect(list.body).toEqual([]);
    const deleted = await call(server.origin, "DELETE", `/v1/schedule/${id}`, { key });
    expect(deleted.status).toBe(204);
    expect(await server.db.prisma.scheduleTick.count({ where: { scheduleId: id } })).toBe(0);
    // Its run stays, with the schedule named.
    expect(await runsOfSchedule(server, id)).toHaveLength(1);
  });
});
