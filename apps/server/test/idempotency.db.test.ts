import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Input, RunSession } from "../src/domain/api-types.js";
import { requestIdentity } from "../src/domain/idempotency.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { type CallOptions, call, type Reply, skillRecord } from "./support/http.js";

/**
 * `Idempotency-Key` on `POST /v1/run/` (docs/api.md "Retrying safely"): a repeat answers the
 * first run, another body is refused, keys are the owner's and last 24 hours, and concurrent
 * requests with one key start one run.
 */

let server: TestServer;
/** How far the server's clock runs ahead of the system's; a test moves it to make time pass. */
let clockAheadMs = 0;
const DAY_MS = 24 * 60 * 60 * 1000;

const ORDER = "skill_order";
const PIN = "1234";

const ORDER_INPUTS: Input[] = [
  { id: "in_item", json_key: "item", data_type: "string", required: true },
  { id: "in_count", json_key: "count", data_type: "number", required: false, default: 1 },
  { id: "in_pin", json_key: "pin", data_type: "string", required: false, secret: true },
];

const REUSED = {
  detail: [
    {
      loc: ["header", "idempotency-key"],
      msg: "This Idempotency-Key was used with a different request body in the last 24 hours; send a new key for a new request",
      type: "idempotency_key_reused",
    },
  ],
};

beforeAll(async () => {
  server = await startTestServer({ clock: { now: () => new Date(Date.now() + clockAheadMs) } });
});

afterAll(async () => {
  await server?.close();
});

/** A fresh owner with the order skill; returns its API key. */
async function ownerWithSkill(owner: string): Promise<string> {
  await server.importSkills(owner, [skillRecord(ORDER, "Order", ORDER_INPUTS)]);
  return server.keyFor(owner);
}

function start(key: string, json: unknown, idempotencyKey?: string, path = "/v1/run/") {
  const options: CallOptions = { key, json };
  if (idempotencyKey !== undefined) options.headers = { "idempotency-key": idempotencyKey };
  return call(server.origin, "POST", path, options);
}

function runOf(reply: Reply): RunSession {
  expect(reply.status, reply.text).toBe(200);
  return reply.body as RunSession;
}

/** How many runs the owner has in the database. */
function runsOf(owner: string): Promise<number> {
  return server.db.prisma.run.count({ where: { owner } });
}

describe("a request with an Idempotency-Key", () => {
  it("answers a repeat with the first run, as GET shows it now, and starts no other", async () => {
    const key = await ownerWithSkill("repeater");
    const first = await start(key, { skill_id: ORDER, inputs: { item: "tea", count: 2 } }, "k-1");
    const run = runOf(first);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(run.state).toBeNull();
    expect(await runsOf("repeater")).toBe(1);

    // The run moves on; a repeat shows it as it is now.
    const cancelled = await call(server.origin, "POST", `/v1/run/${run.id}/cancel`, { key });
    expect(cancelled.body).toBe("cancel");
    const now = await call(server.origin, "GET", `/v1/run/${run.id}`, { key });

    // The same body: keys in another order, an ignored field, the path without its slash.
    for (const [body, path] of [
      [{ skill_id: ORDER, inputs: { item: "tea", count: 2 } }, "/v1/run/"],
      [{ inputs: { count: 2, item: "tea" }, skill_id: ORDER, note: "ignored" }, "/v1/run/"],
      [{ skill_id: ORDER, inputs: { item: "tea", count: 2 } }, "/v1/run"],
    ] as const) {
      const repeat = await start(key, body, "k-1", path);
      expect(repeat.status, repeat.text).toBe(200);
      expect(repeat.headers.get("idempotent-replayed")).toBe("true");
      expect(repeat.body).toEqual(now.body);
      expect((repeat.body as RunSession).state).toBe("cancel");
    }
    expect(await runsOf("repeater")).toBe(1);
  });

  it("refuses the key with a different body, saying so, and starts nothing", async () => {
    const key = await ownerWithSkill("changer");
    await server.importSkills("changer", [skillRecord("skill_other", "Other")]);
    runOf(await start(key, { skill_id: ORDER, inputs: { item: "tea" } }, "k-1"));

    for (const body of [
      { skill_id: ORDER, inputs: { item: "coffee" } },
      { skill_id: ORDER, inputs: { item: "tea", count: 1 } }, // the default, but not as sent
      { skill_id: ORDER, inputs: { item: "tea", pin: PIN } },
      { skill_id: ORDER, inputs: { item: "tea" }, environment: "client" },
      { skill_id: "skill_other" },
      { skill_id: "skill_unknown" },
    ]) {
      const reply = await start(key, body, "k-1");
      expect(reply.status, JSON.stringify(body)).toBe(422);
      expect(reply.body).toEqual(REUSED);
      expect(reply.headers.get("idempotent-replayed")).toBeNull();
    }
    expect(await runsOf("changer")).toBe(1);
  });

  it("counts absent, null and empty inputs as the same body", async () => {
    const key = await ownerWithSkill("empty-inputs");
    await server.importSkills("empty-inputs", [skillRecord("skill_bare", "Bare")]);
    const run = runOf(await start(key, { skill_id: "skill_bare" }, "k-1"));
    for (const body of [
      { skill_id: "skill_bare", inputs: null },
      { skill_id: "skill_bare", inputs: {} },
      // `cloud` is what no environment means.
      { skill_id: "skill_bare", environment: "cloud" },
      { skill_id: "skill_bare", environment: null },
    ]) {
      expect(runOf(await start(key, body, "k-1")).id).toBe(run.id);
    }
    expect(await runsOf("empty-inputs")).toBe(1);
  });

  it("keeps each owner's keys apart", async () => {
    const ann = await ownerWithSkill("ann");
    const ben = await ownerWithSkill("ben");
    const anns = runOf(await start(ann, { skill_id: ORDER, inputs: { item: "tea" } }, "shared"));
    // Another owner's same key, even with another body, is a key of its own.
    const bens = runOf(await start(ben, { skill_id: ORDER, inputs: { item: "milk" } }, "shared"));
    expect(bens.id).not.toBe(anns.id);
    expect(bens.owner).toBe("ben");
    expect(runOf(await start(ann, { skill_id: ORDER, inputs: { item: "tea" } }, "shared")).id).toBe(
      anns.id,
    );
    expect(
      runOf(await start(ben, { skill_id: ORDER, inputs: { item: "milk" } }, "shared")).id,
    ).toBe(bens.id);
    expect(await runsOf("ann")).toBe(1);
    expect(await runsOf("ben")).toBe(1);
  });

  it("binds nothing when the request fails, so the key can start a run after", async () => {
    const key = await ownerWithSkill("failer");
    expect((await start(key, { skill_id: "skill_unknown" }, "k-1")).status).toBe(404);
    expect((await start(key, { skill_id: ORDER, inputs: {} }, "k-1")).status).toBe(422);
    expect(await runsOf("failer")).toBe(0);
    const run = runOf(await start(key, { skill_id: ORDER, inputs: { item: "tea" } }, "k-1"));
    expect(run.inputs).toEqual({ item: "tea", count: 1 });
  });

  it("answers a repeat with its run even after the skill changed", async () => {
    const key = await ownerWithSkill("evolver");
    const run = runOf(await start(key, { skill_id: ORDER, inputs: { item: "tea" } }, "k-1"));
    // A required input added: the same body would now be refused, but its run was started.
    await server.importSkills("evolver", [
      {
        ...skillRecord(ORDER, "Order", [
          ...ORDER_INPUTS,
          { id: "in_size", json_key: "size", data_type: "string", required: true },
        ]),
        definitionHash: "hash-of-the-changed-definition",
      },
    ]);
    expect((await start(key, { skill_id: ORDER, inputs: { item: "tea" } })).status).toBe(422);
    expect(runOf(await start(key, { skill_id: ORDER, inputs: { item: "tea" } }, "k-1")).id).toBe(
      run.id,
    );
  });

  it("keeps a secret input sealed, and its value out of what the key stores", async () => {
    const key = await ownerWithSkill("secretive");
    const body = { skill_id: ORDER, inputs: { item: "tea", pin: PIN } };
    const run = runOf(await start(key, body, "k-1"));
    expect(run.inputs).toEqual({ item: "tea", count: 1, pin: "***" });

    const rows = await server.db.prisma.idempotencyKey.findMany({ where: { owner: "secretive" } });
    expect(rows).toHaveLength(1);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(PIN);
    const hash = rows[0]?.requestHash ?? "";
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    // Keyed: not a hash anyone can recompute from a guess at the body.
    const identity = requestIdentity(body);
    expect(hash).not.toBe(createHash("sha256").update(identity).digest("hex"));
    const runRow = await server.db.prisma.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(JSON.stringify(runRow)).not.toContain(PIN);

    // The repeat is the same run, still masked; another PIN is another body.
    const repeat = runOf(await start(key, body, "k-1"));
    expect(repeat.id).toBe(run.id);
    expect(repeat.inputs).toEqual({ item: "tea", count: 1, pin: "***" });
    const otherPin = await start(
      key,
      { skill_id: ORDER, inputs: { item: "tea", pin: "4321" } },
      "k-1",
    );
    expect(otherPin.body).toEqual(REUSED);
  });

  it("starts a new run once the key is 24 hours old, and sweeps expired keys", async () => {
    const key = await ownerWithSkill("expirer");
    const body = { skill_id: ORDER, inputs: { item: "tea" } };
    const first = runOf(await start(key, body, "k-1"));
    await start(key, body, "k-old");

    clockAheadMs += DAY_MS - 1000;
    expect(runOf(await start(key, body, "k-1")).id).toBe(first.id);

    clockAheadMs += 1000;
    // Past its 24 hours the key is free: a new run, even for another body.
    const second = runOf(await start(key, { skill_id: ORDER, inputs: { item: "milk" } }, "k-1"));
    expect(second.id).not.toBe(first.id);
    expect(runOf(await start(key, { skill_id: ORDER, inputs: { item: "milk" } }, "k-1")).id).toBe(
      second.id,
    );
    expect(await runsOf("expirer")).toBe(3);

    // A keyed request a minute later deletes the keys past their 24 hours (k-old).
    clockAheadMs += 61_000;
    runOf(await start(key, body, "k-new"));
    const keys = await server.db.prisma.idempotencyKey.findMany({
      where: { owner: "expirer" },
      orderBy: { key: "asc" },
    });
    expect(keys.map((k) => [k.key, k.runId])).toEqual([
      ["k-1", second.id],
      ["k-new", expect.any(String)],
    ]);
  });

  it("starts every request without the header, as before", async () => {
    const key = await ownerWithSkill("headerless");
    const body = { skill_id: ORDER, inputs: { item: "tea" } };
    const a = runOf(await start(key, body));
    const b = runOf(await start(key, body));
    expect(a.id).not.toBe(b.id);
    expect(await runsOf("headerless")).toBe(2);
    expect(await server.db.prisma.idempotencyKey.count({ where: { owner: "headerless" } })).toBe(0);
  });
});

describe("concurrent requests with one Idempotency-Key", () => {
  const CONCURRENT = 20;

  it(`start exactly one run between ${CONCURRENT} of them`, async () => {
    const key = await ownerWithSkill("racer");
    const body = { skill_id: ORDER, inputs: { item: "tea" } };
    const replies = await Promise.all(
      Array.from({ length: CONCURRENT }, () => start(key, body, "race")),
    );
    const ids = new Set(replies.map((reply) => runOf(reply).id));
    expect(ids.size).toBe(1);
    // One of them started it; the others answered it.
    expect(replies.filter((r) => r.headers.get("idempotent-replayed") === null)).toHaveLength(1);
    expect(await runsOf("racer")).toBe(1);
    expect(await server.db.prisma.idempotencyKey.count({ where: { owner: "racer" } })).toBe(1);
  });

  it("start one run when their bodies differ, and refuse the rest", async () => {
    const key = await ownerWithSkill("rivals");
    const replies = await Promise.all(
      Array.from({ length: CONCURRENT }, (_, i) =>
        start(key, { skill_id: ORDER, inputs: { item: `item ${i}` } }, "race"),
      ),
    );
    const started = replies.filter((r) => r.status === 200);
    expect(started).toHaveLength(1);
    const refused = replies.filter((r) => r.status === 422);
    expect(refused).toHaveLength(CONCURRENT - 1);
    for (const reply of refused) expect(reply.body).toEqual(REUSED);
    expect(await runsOf("rivals")).toBe(1);
  });

  it("start one run when they take over an expired key together", async () => {
    const key = await ownerWithSkill("late-racer");
    const body = { skill_id: ORDER, inputs: { item: "tea" } };
    const old = runOf(await start(key, body, "race"));
    clockAheadMs += DAY_MS;
    const replies = await Promise.all(
      Array.from({ length: CONCURRENT }, () => start(key, body, "race")),
    );
    const ids = new Set(replies.map((reply) => runOf(reply).id));
    expect(ids.size).toBe(1);
    expect(ids.has(old.id)).toBe(false);
    expect(await runsOf("late-racer")).toBe(2);
  });
});

describe("a malformed Idempotency-Key", () => {
  const issue = (msg: string, type: string) => ({
    detail: [{ loc: ["header", "idempotency-key"], msg, type }],
  });
  const PATTERN = issue("String should match pattern '^[!-~]*$'", "string_pattern_mismatch");

  it("is a 422 at the header, and starts nothing", async () => {
    const key = await ownerWithSkill("malformed");
    const body = { skill_id: ORDER, inputs: { item: "tea" } };
    for (const [value, expected] of [
      ["", issue("String should have at least 1 characters", "string_too_short")],
      ["k".repeat(256), issue("String should have at most 255 characters", "string_too_long")],
      ["two words", PATTERN],
      ["tab\there", PATTERN],
      ["caf\u00e9", PATTERN],
    ] as const) {
      const reply = await start(key, body, value);
      expect(reply.status, JSON.stringify(value)).toBe(422);
      expect(reply.body, JSON.stringify(value)).toEqual(expected);
    }
    expect(await runsOf("malformed")).toBe(0);
  });

  it("is one of 1 to 255 visible ASCII characters", async () => {
    const key = await ownerWithSkill("well-formed");
    const body = { skill_id: ORDER, inputs: { item: "tea" } };
    const visible = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) =>
      String.fromCharCode(0x21 + i),
    );
    for (const value of [
      "k",
      "k".repeat(255),
      visible.join(""),
      "550e8400-e29b-41d4-a716-446655440000",
    ]) {
      const reply = await start(key, body, value);
      expect(reply.status, `${value}: ${reply.text}`).toBe(200);
    }
    expect(await runsOf("well-formed")).toBe(4);
  });

  it("sent twice is refused: the two values arrive joined by a comma and a space", async () => {
    const key = await ownerWithSkill("doubled");
    const reply = await fetch(`${server.origin}/v1/run/`, {
      method: "POST",
      headers: [
        ["authorization", `Bearer ${key}`],
        ["content-type", "application/json"],
        ["idempotency-key", "a"],
        ["idempotency-key", "b"],
      ],
      body: JSON.stringify({ skill_id: ORDER, inputs: { item: "tea" } }),
    });
    expect(reply.status).toBe(422);
    expect(await reply.json()).toEqual(PATTERN);
    expect(await runsOf("doubled")).toBe(0);
  });
});
