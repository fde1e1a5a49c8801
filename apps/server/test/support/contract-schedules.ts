import { expect } from "vitest";
import { startTestServer } from "../../src/test-support/test-server.js";
import type { Ctx, Provocation, Table } from "./contract-table.js";
import { call, oversizedRunBody, type Reply, skillRecord, TOO_LONG_ID } from "./http.js";

// The rows of the schedule operations. The contract's server runs no scheduler: ticks are
// written by a trigger, which fires at once.

const UNKNOWN = "sch_0190a9f4-6c1b-7d3a-9b1e-2f4c5d6e7f80";
const SCHEDULE_ID = /^sch_[0-9a-f-]{36}$/;

type Send = (ctx: Ctx, key: string | undefined) => Promise<Reply>;

export interface ScheduleRowHelpers {
  unauthorized(send: Send): Provocation[];
  failing(send: (ctx: Ctx) => Promise<Reply>): Provocation[];
}

/** A new schedule of alice's (bob's with `owner`) on `skill`, every hour; returns its id. */
async function newSchedule(ctx: Ctx, skill: string, owner: "alice" | "bob" = "alice") {
  const key = owner === "alice" ? ctx.alice : ctx.bob;
  const reply = await call(ctx.main.origin, "POST", "/v1/schedule", {
    key,
    json: { skill_id: skill, cron: "0 * * * *" },
  });
  expect(reply.status, reply.text).toBe(201);
  return (reply.body as { id: string }).id;
}

/** A skill of alice's of its own, with required number inputs (`n` by default). */
async function ownSkill(ctx: Ctx, id: string, inputs: string[] = ["n"]): Promise<void> {
  const declared = inputs.map((key) => ({
    id: `in_${key}`,
    json_key: key,
    data_type: "number" as const,
    required: true,
  }));
  // A definition of its own for each set of inputs: an import of an unchanged one changes nothing.
  const record = { ...skillRecord(id, "Scheduled", declared), definitionHash: `${id}-${inputs}` };
  await ctx.main.importSkills("alice", [record]);
}

let skills = 0;

/** A schedule of alice's on a skill of its own, then `change` made to that skill. */
async function scheduleThen(
  ctx: Ctx,
  change: (ctx: Ctx, skill: string) => Promise<void>,
): Promise<string> {
  skills += 1;
  const skill = `skill_scheduled_${skills}`;
  await ownSkill(ctx, skill);
  const reply = await call(ctx.main.origin, "POST", "/v1/schedule", {
    key: ctx.alice,
    json: { skill_id: skill, cron: "0 * * * *", inputs: { n: 1 } },
  });
  expect(reply.status, reply.text).toBe(201);
  await change(ctx, skill);
  return (reply.body as { id: string }).id;
}

/** A trigger on a server of its own whose OWNER_MAX_QUEUED is 1, once alice has a run queued. */
async function triggerWithQueueFull(skill: string): Promise<Reply> {
  const server = await startTestServer({ env: { OWNER_MAX_QUEUED: "1" } });
  try {
    const key = await server.keyFor("alice");
    await server.importSkills("alice", [skillRecord(skill, "Alice's")]);
    const created = await call(server.origin, "POST", "/v1/schedule", {
      key,
      json: { skill_id: skill, cron: "0 * * * *" },
    });
    const first = await call(server.origin, "POST", "/v1/run/", { key, json: { skill_id: skill } });
    expect(first.status, first.text).toBe(200);
    const id = (created.body as { id: string }).id;
    return await call(server.origin, "POST", `/v1/schedule/${id}/trigger`, { key });
  } finally {
    await server.close();
  }
}

/** A 413 for a request to `path` with a body over 1 MiB. */
function oversized(method: string, path: string, skill: string): Provocation[] {
  return [
    {
      name: "a body over 1 MiB",
      send: (ctx) =>
        call(ctx.main.origin, method, path, { key: ctx.alice, body: oversizedRunBody(skill) }),
    },
  ];
}

/** The 404s of an operation on one schedule: unknown, and another owner's. */
function notFound(method: string, path: (id: string) => string, skill: string): Provocation[] {
  const json = method === "PATCH" ? { json: {} } : {};
  return [
    {
      name: "an unknown schedule",
      send: (ctx) => call(ctx.main.origin, method, path(UNKNOWN), { key: ctx.alice, ...json }),
      check: (reply) => expect(reply.body).toEqual({ detail: "Schedule not found" }),
    },
    {
      name: "another owner's schedule",
      send: async (ctx) =>
        call(ctx.main.origin, method, path(await newSchedule(ctx, skill, "bob")), {
          key: ctx.alice,
          ...json,
        }),
    },
  ];
}

/** The rows of the schedule operations, on alice's skill `skill` (bob has `bobSkill`). */
export function scheduleRows(skill: string, bobSkill: string, helpers: ScheduleRowHelpers): Table {
  const { unauthorized, failing } = helpers;
  const one = (id: string) => `/v1/schedule/${id}`;
  const ticks = (id: string) => `/v1/schedule/${id}/ticks`;
  const trigger = (id: string) => `/v1/schedule/${id}/trigger`;
  return {
    createSchedule: {
      "201": [
        {
          name: "a schedule with every field",
          send: (ctx) =>
            call(ctx.main.origin, "POST", "/v1/schedule", {
              key: ctx.alice,
              json: {
                skill_id: skill,
                inputs: { query: "shoes" },
                cron: "0 30 9 * * MON-FRI",
                timezone: "Europe/Berlin",
                overlap: "buffer_one",
                catchup: "1h",
                jitter: "30s",
                paused: false,
                pause_after_failures: 3,
              },
            }),
          check: (reply) => {
            const body = reply.body as { id: string; next_runs: string[] };
            expect(body.id).toMatch(SCHEDULE_ID);
            expect(body.next_runs).toHaveLength(5);
            expect(body.next_runs[0]).toMatch(/T09:30:00\.000\+0[12]:00$/);
          },
        },
        {
          name: "a schedule with only a skill and a cron",
          send: (ctx) =>
            call(ctx.main.origin, "POST", "/v1/schedule", {
              key: ctx.alice,
              json: { skill_id: skill, cron: "*/5 * * * *" },
            }),
          check: (reply) =>
            expect(reply.body).toMatchObject({
              timezone: "UTC",
              overlap: "skip",
              catchup: "0",
              jitter: "0",
              inputs: { query: "x" },
            }),
        },
      ],
      "401": unauthorized((ctx, key) =>
        call(ctx.main.origin, "POST", "/v1/schedule", {
          key,
          json: { skill_id: skill, cron: "0 * * * *" },
        }),
      ),
      "404": [
        {
          name: "another owner's skill",
          send: (ctx) =>
            call(ctx.main.origin, "POST", "/v1/schedule", {
              key: ctx.alice,
              json: { skill_id: bobSkill, cron: "0 * * * *" },
            }),
          check: (reply) => expect(reply.body).toEqual({ detail: "Skill not found" }),
        },
      ],
      "413": oversized("POST", "/v1/schedule", skill),
      "422": [
        {
          name: "an unknown time zone",
          send: (ctx) =>
            call(ctx.main.origin, "POST", "/v1/schedule", {
              key: ctx.alice,
              json: { skill_id: skill, cron: "0 * * * *", timezone: "Mars/Olympus" },
            }),
          check: (reply) =>
            expect(reply.body).toMatchObject({ detail: [{ loc: ["body", "timezone"] }] }),
        },
        {
          name: "a cron firing more often than SCHEDULE_MIN_INTERVAL_SECONDS",
          send: (ctx) =>
            call(ctx.main.origin, "POST", "/v1/schedule", {
              key: ctx.alice,
              json: { skill_id: skill, cron: "*/30 * * * * *" },
            }),
          check: (reply) =>
            expect(reply.body).toMatchObject({ detail: [{ loc: ["body", "cron"] }] }),
        },
        {
          name: "no cron",
          send: (ctx) =>
            call(ctx.main.origin, "POST", "/v1/schedule", {
              key: ctx.alice,
              json: { skill_id: skill },
            }),
        },
        {
          name: "inputs its skill refuses",
          send: (ctx) =>
            call(ctx.main.origin, "POST", "/v1/schedule", {
              key: ctx.alice,
              json: { skill_id: skill, cron: "0 * * * *", inputs: { unknown: 1 } },
            }),
        },
      ],
      "500": failing((ctx) =>
        call(ctx.broken.origin, "POST", "/v1/schedule", {
          key: ctx.brokenKey,
          json: { skill_id: skill, cron: "0 * * * *" },
        }),
      ),
    },

    previewScheduleRuns: {
      "200": [
        {
          name: "a weekday cron in Berlin, stored nowhere",
          send: (ctx) =>
            call(ctx.main.origin, "POST", "/v1/schedule/next_runs", {
              key: ctx.alice,
              json: { cron: "0  7 * * MON-FRI", timezone: "europe/berlin" },
            }),
          check: (reply) => {
            const body = reply.body as { cron: string; timezone: string; next_runs: string[] };
            expect(body.cron).toBe("0 7 * * MON-FRI");
            expect(body.timezone).toBe("Europe/Berlin");
            expect(body.next_runs).toHaveLength(5);
            for (const at of body.next_runs) expect(at).toMatch(/T07:00:00\.000\+0[12]:00$/);
          },
        },
      ],
      "401": unauthorized((ctx, key) =>
        call(ctx.main.origin, "POST", "/v1/schedule/next_runs", {
          key,
          json: { cron: "0 * * * *" },
        }),
      ),
      "413": oversized("POST", "/v1/schedule/next_runs", skill),
      "422": [
        {
          name: "an unknown time zone",
          send: (ctx) =>
            call(ctx.main.origin, "POST", "/v1/schedule/next_runs", {
              key: ctx.alice,
              json: { cron: "0 * * * *", timezone: "Mars/Olympus" },
            }),
          check: (reply) =>
            expect(reply.body).toMatchObject({ detail: [{ loc: ["body", "timezone"] }] }),
        },
        {
          name: "a cron firing more often than SCHEDULE_MIN_INTERVAL_SECONDS",
          send: (ctx) =>
            call(ctx.main.origin, "POST", "/v1/schedule/next_runs", {
              key: ctx.alice,
              json: { cron: "*/30 * * * * *" },
            }),
          check: (reply) =>
            expect(reply.body).toMatchObject({ detail: [{ loc: ["body", "cron"] }] }),
        },
        {
          name: "no cron",
          send: (ctx) =>
            call(ctx.main.origin, "POST", "/v1/schedule/next_runs", { key: ctx.alice, json: {} }),
        },
      ],
      "500": {
        unreachable:
          "computed from the request alone: it reads no repository, so the contract's server whose repositories fail cannot make it fail",
      },
    },

    listSchedules: {
      "200": [
        {
          name: "the caller's schedules",
          send: async (ctx) => {
            await newSchedule(ctx, skill);
            return call(ctx.main.origin, "GET", "/v1/schedule/list", { key: ctx.alice });
          },
          check: (reply) => expect((reply.body as unknown[]).length).toBeGreaterThan(0),
        },
      ],
      "401": unauthorized((ctx, key) => call(ctx.main.origin, "GET", "/v1/schedule/list", { key })),
      "500": failing((ctx) =>
        call(ctx.broken.origin, "GET", "/v1/schedule/list", { key: ctx.brokenKey }),
      ),
    },

    getSchedule: {
      "200": [
        {
          name: "a schedule of the caller's",
          send: async (ctx) =>
            call(ctx.main.origin, "GET", one(await newSchedule(ctx, skill)), { key: ctx.alice }),
        },
      ],
      "401": unauthorized((ctx, key) => call(ctx.main.origin, "GET", one(UNKNOWN), { key })),
      "404": notFound("GET", one, bobSkill),
      "422": [
        {
          name: "an id over 128 characters",
          send: (ctx) => call(ctx.main.origin, "GET", one(TOO_LONG_ID), { key: ctx.alice }),
        },
      ],
      "500": failing((ctx) => call(ctx.broken.origin, "GET", one(UNKNOWN), { key: ctx.brokenKey })),
    },

    updateSchedule: {
      "200": [
        {
          name: "a pause and a new cron",
          send: async (ctx) =>
            call(ctx.main.origin, "PATCH", one(await newSchedule(ctx, skill)), {
              key: ctx.alice,
              json: { paused: true, cron: "15 * * * *", pause_after_failures: null },
            }),
          check: (reply) =>
            expect(reply.body).toMatchObject({
              paused: true,
              paused_reason: "requested",
              cron: "15 * * * *",
            }),
        },
      ],
      "401": unauthorized((ctx, key) =>
        call(ctx.main.origin, "PATCH", one(UNKNOWN), { key, json: {} }),
      ),
      "404": notFound("PATCH", one, bobSkill),
      "413": oversized("PATCH", one(UNKNOWN), skill),
      "422": [
        {
          name: "a jitter not shorter than the cron's interval",
          send: async (ctx) =>
            call(ctx.main.origin, "PATCH", one(await newSchedule(ctx, skill)), {
              key: ctx.alice,
              json: { cron: "* * * * *", jitter: "1m" },
            }),
          check: (reply) =>
            expect(reply.body).toMatchObject({ detail: [{ loc: ["body", "jitter"] }] }),
        },
        {
          name: "the skill, which cannot change",
          send: async (ctx) =>
            call(ctx.main.origin, "PATCH", one(await newSchedule(ctx, skill)), {
              key: ctx.alice,
              json: { skill_id: bobSkill },
            }),
        },
      ],
      "500": failing((ctx) =>
        call(ctx.broken.origin, "PATCH", one(UNKNOWN), { key: ctx.brokenKey, json: {} }),
      ),
    },

    deleteSchedule: {
      "204": [
        {
          name: "a schedule of the caller's",
          send: async (ctx) =>
            call(ctx.main.origin, "DELETE", one(await newSchedule(ctx, skill)), {
              key: ctx.alice,
            }),
        },
      ],
      "401": unauthorized((ctx, key) => call(ctx.main.origin, "DELETE", one(UNKNOWN), { key })),
      "404": notFound("DELETE", one, bobSkill),
      "413": oversized("DELETE", one(UNKNOWN), skill),
      "422": [
        {
          name: "an id over 128 characters",
          send: (ctx) => call(ctx.main.origin, "DELETE", one(TOO_LONG_ID), { key: ctx.alice }),
        },
      ],
      "500": failing((ctx) =>
        call(ctx.broken.origin, "DELETE", one(UNKNOWN), { key: ctx.brokenKey }),
      ),
    },

    triggerSchedule: {
      "201": [
        {
          name: "a schedule of the caller's",
          send: async (ctx) =>
            call(ctx.main.origin, "POST", trigger(await newSchedule(ctx, skill)), {
              key: ctx.alice,
            }),
          check: (reply) =>
            expect(reply.body).toMatchObject({
              schedule_id: expect.stringMatching(SCHEDULE_ID),
              scheduled_for: expect.any(String),
              state: null,
            }),
        },
      ],
      "401": unauthorized((ctx, key) => call(ctx.main.origin, "POST", trigger(UNKNOWN), { key })),
      "404": [
        ...notFound("POST", trigger, bobSkill),
        {
          name: "a schedule whose skill was deleted",
          send: async (ctx) => {
            const id = await scheduleThen(ctx, async (c, s) => {
              await c.main.repos.skills.delete("alice", s);
            });
            return call(ctx.main.origin, "POST", trigger(id), { key: ctx.alice });
          },
          check: (reply) => expect(reply.body).toEqual({ detail: "Skill not found" }),
        },
      ],
      "409": [
        {
          name: "a schedule whose inputs its skill, changed since, refuses",
          send: async (ctx) => {
            const id = await scheduleThen(ctx, (c, s) => ownSkill(c, s, ["n", "m"]));
            return call(ctx.main.origin, "POST", trigger(id), { key: ctx.alice });
          },
          check: (reply) =>
            expect((reply.body as { detail: string }).detail).toMatch(
              /^the schedule's inputs no longer fit skill skill_scheduled_\d+: inputs\.m: Field required; PATCH the schedule's inputs$/,
            ),
        },
      ],
      "413": oversized("POST", trigger(UNKNOWN), skill),
      "422": [
        {
          name: "an id over 128 characters",
          send: (ctx) => call(ctx.main.origin, "POST", trigger(TOO_LONG_ID), { key: ctx.alice }),
        },
      ],
      "429": [
        {
          name: "a trigger with OWNER_MAX_QUEUED of the owner's runs waiting",
          send: () => triggerWithQueueFull(skill),
          check: (reply) => expect(reply.headers.get("retry-after")).toBe("10"),
        },
      ],
      "500": failing((ctx) =>
        call(ctx.broken.origin, "POST", trigger(UNKNOWN), { key: ctx.brokenKey }),
      ),
    },

    listScheduleTicks: {
      "200": [
        {
          name: "a schedule's ticks, a trigger's among them",
          send: async (ctx) => {
            const id = await newSchedule(ctx, skill);
            const run = await call(ctx.main.origin, "POST", trigger(id), { key: ctx.alice });
            expect(run.status, run.text).toBe(201);
            return call(ctx.main.origin, "GET", `${ticks(id)}?limit=10`, { key: ctx.alice });
          },
          check: (reply) =>
            expect(reply.body).toMatchObject([{ outcome: "fired", manual: true, reason: null }]),
        },
      ],
      "401": unauthorized((ctx, key) => call(ctx.main.origin, "GET", ticks(UNKNOWN), { key })),
      "404": notFound("GET", ticks, bobSkill),
      "422": [
        {
          name: "a limit over 1000",
          send: (ctx) =>
            call(ctx.main.origin, "GET", `${ticks(UNKNOWN)}?limit=1001`, { key: ctx.alice }),
        },
      ],
      "500": failing((ctx) =>
        call(ctx.broken.origin, "GET", ticks(UNKNOWN), { key: ctx.brokenKey }),
      ),
    },
  };
}
