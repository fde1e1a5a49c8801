import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call } from "./support/http.js";

// POST /v1/run/ with the fair queue's limits, over HTTP: OWNER_MAX_QUEUED's 429, the concurrency
// key a run is queued with, and waiting_for as clients read it. (What the database decides is
// in src/db/repositories/fair-queue.db.test.ts, on both flavours.)

const SITE_SKILL = `
id: skill_site
name: Site
concurrency: 1
concurrency_key: "{{ inputs.site }}"
inputs:
  - { json_key: site, data_type: string }
steps:
  - log: "{{ inputs.site }}"
`;

let server: TestServer;
let alice: string;
let bob: string;

beforeAll(async () => {
  server = await startTestServer({ env: { OWNER_MAX_QUEUED: "2" } });
  alice = await server.keyFor("alice");
  bob = await server.keyFor("bob");
  await server.importSkillYaml("alice", SITE_SKILL);
  await server.importSkillYaml("bob", SITE_SKILL);
});
afterAll(async () => {
  await server?.close();
});

function start(key: string, site: string, headers: Record<string, string> = {}) {
  return call(server.origin, "POST", "/v1/run/", {
    key,
    json: { skill_id: "skill_site", inputs: { site } },
    headers,
  });
}

describe("POST /v1/run/ with the fair queue", () => {
  it("refuses a run too long a concurrency key would name, and queues nothing", async () => {
    const reply = await start(alice, "x".repeat(129));
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({
      detail: [
        {
          loc: ["body", "inputs"],
          msg: "Value error, the skill's concurrency_key renders to 129 characters for these inputs; at most 128",
          type: "value_error",
        },
      ],
    });
    expect(await server.db.prisma.run.count({ where: { owner: "alice" } })).toBe(0);
  });

  it("queues runs with their rendered key and says what they wait for", async () => {
    const first = await start(alice, "a.example");
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ state: null, waiting_for: "slot" });
    const id = (first.body as { id: string }).id;
    const row = await server.db.prisma.run.findUnique({ where: { id } });
    expect(row).toMatchObject({ concurrencyLimit: 1, concurrencyKey: "a.example" });
    // A worker takes it: the next run of that key waits for the key.
    expect((await server.repos.runExecution.claim("worker-1", 30_000))?.id).toBe(id);
    const second = await start(alice, "a.example", { "idempotency-key": "second" });
    expect(second.body).toMatchObject({ waiting_for: "concurrency_key" });
    const secondId = (second.body as { id: string }).id;
    const got = await call(server.origin, "GET", `/v1/run/${secondId}`, { key: alice });
    expect(got.body).toMatchObject({ waiting_for: "concurrency_key" });
    const claimed = await call(server.origin, "GET", `/v1/run/${id}`, { key: alice });
    expect(claimed.body).toMatchObject({ state: "play", waiting_for: null });
  });

  it("answers 429 past OWNER_MAX_QUEUED, replays a key's run all the same, and leaves other owners be", async () => {
    // alice has one run queued from the test before; one more fills her queue.
    expect((await start(alice, "b.example")).status).toBe(200);
    const refused = await start(alice, "c.example");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("10");
    expect(refused.body).toEqual({
      detail: "Too many queued runs: the owner has OWNER_MAX_QUEUED runs waiting to start",
    });
    expect(await server.db.prisma.run.count({ where: { owner: "alice", state: null } })).toBe(2);
    const replayed = await start(alice, "a.example", { "idempotency-key": "second" });
    expect(replayed.status, replayed.text).toBe(200);
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect((await start(bob, "c.example")).status).toBe(200);
  });
});
