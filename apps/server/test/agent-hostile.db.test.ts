import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT_PROTOCOL_HEADER } from "../src/agent-api/protocol.js";
import type { RunEvent } from "../src/domain/api-types.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import {
  AGENT_SKILL,
  AGENT_SKILL_YAML,
  heldClientRun,
  newAgentId,
  uploadOf,
} from "./support/contract-agents.js";
import { call } from "./support/http.js";

/**
 * What a hostile or confused agent cannot do, on both databases: write to a run it does not
 * hold, end a run twice, send a batch past the limit, speak another protocol, take a cloud run
 * or another owner's run. Each refusal leaves the run as it was.
 */

let server: TestServer;
let alice: string;

beforeAll(async () => {
  server = await startTestServer();
  await server.importSkillYaml("alice", AGENT_SKILL_YAML);
  alice = await server.keyFor("alice");
});

afterAll(async () => {
  await server?.close();
});

function agentPost(path: string, key: string, json: unknown, protocol = "1") {
  return call(server.origin, "POST", path, {
    key,
    json,
    headers: { [AGENT_PROTOCOL_HEADER]: protocol },
  });
}

async function eventsOf(runId: string): Promise<RunEvent[]> {
  const reply = await call(server.origin, "GET", `/v1/run/${runId}/events`, { key: alice });
  expect(reply.status, reply.text).toBe(200);
  return reply.body as RunEvent[];
}

const LOG = (message: string) => ({ at: new Date().toISOString(), type: "log", message });

describe("a hostile agent", () => {
  it("cannot write to a run another agent holds: fenced, nothing written", async () => {
    const held = await heldClientRun(server, AGENT_SKILL);
    const before = await eventsOf(held.runId);
    const reply = await agentPost(`/v1/agent/run/${held.runId}/events`, held.key, {
      agent_id: newAgentId(),
      events: [LOG("forged")],
      data: { forged: true },
    });
    expect(reply.status).toBe(409);
    expect(await eventsOf(held.runId)).toEqual(before);
    const ended = await agentPost(`/v1/agent/run/${held.runId}/end`, held.key, {
      agent_id: newAgentId(),
      state: "finish",
      events: [],
    });
    expect(ended.status).toBe(409);
    const run = await call(server.origin, "GET", `/v1/run/${held.runId}`, { key: alice });
    expect(run.body).toMatchObject({ state: "play", data: null });
  });

  it("cannot end a run twice: the replay is a 409 and the ending stands", async () => {
    const held = await heldClientRun(server, AGENT_SKILL);
    const path = `/v1/agent/run/${held.runId}/end`;
    const first = await agentPost(path, held.key, {
      agent_id: held.agentId,
      state: "finish",
      events: [LOG("last")],
      data: { n: 1 },
    });
    expect(first.body).toEqual({ state: "finish", pause_requested: false });
    const replay = await agentPost(path, held.key, {
      agent_id: held.agentId,
      state: "reset",
      events: [LOG("again")],
      error: { step: null, message: "changed my mind" },
    });
    expect(replay.status).toBe(409);
    expect(replay.body).toEqual({
      detail: "This agent does not hold the run: it is in state finish",
    });
    const run = await call(server.origin, "GET", `/v1/run/${held.runId}`, { key: alice });
    expect(run.body).toMatchObject({ state: "finish", data: { n: 1 } });
    const messages = (await eventsOf(held.runId)).map((e) => e.message);
    expect(messages).toContain("last");
    expect(messages).not.toContain("again");
  });

  it("cannot send a batch past 500 events; nothing of it is written", async () => {
    const held = await heldClientRun(server, AGENT_SKILL);
    const before = await eventsOf(held.runId);
    const reply = await agentPost(`/v1/agent/run/${held.runId}/events`, held.key, {
      agent_id: held.agentId,
      events: Array.from({ length: 501 }, (_, i) => LOG(`line ${i}`)),
    });
    expect(reply.status).toBe(422);
    expect(reply.body).toMatchObject({ detail: [{ loc: ["body", "events"] }] });
    expect(await eventsOf(held.runId)).toEqual(before);
  });

  it("cannot write more than 10,000 events in a claim: one note, then nothing, as a worker", async () => {
    const held = await heldClientRun(server, AGENT_SKILL);
    const path = `/v1/agent/run/${held.runId}/events`;
    for (let batch = 0; batch < 21; batch++) {
      const events = Array.from({ length: 500 }, (_, i) => LOG(`line ${batch * 500 + i}`));
      const reply = await agentPost(path, held.key, { agent_id: held.agentId, events });
      expect(reply.status, reply.text).toBe(200);
    }
    const ended = await agentPost(`/v1/agent/run/${held.runId}/end`, held.key, {
      agent_id: held.agentId,
      state: "finish",
      events: [LOG("past the limit")],
    });
    expect(ended.status, ended.text).toBe(200);
    const kept = await server.db.prisma.runEvent.findMany({
      where: { runId: held.runId, type: "log" },
      orderBy: { id: "asc" },
      select: { message: true },
    });
    expect(kept).toHaveLength(10_001);
    expect(kept[9_999]?.message).toBe("line 9999");
    expect(kept[10_000]?.message).toBe(
      "the run reached its limit of 10000 events in the step log; later events are not recorded (the run goes on)",
    );
    // The ending is written all the same.
    const run = await call(server.origin, "GET", `/v1/run/${held.runId}`, { key: alice });
    expect(run.body).toMatchObject({ state: "finish" });
  });

  it("reads no upload but those its run's inputs name, and only its owner's", async () => {
    const own = await uploadOf(server, new TextEncoder().encode("a,b\n"));
    const bobs = await uploadOf(server, new TextEncoder().encode("secret,of\nbob,s\n"), "bob");
    // Bob's upload id given to alice's run as a plain input: still not alice's to read.
    const held = await heldClientRun(server, AGENT_SKILL, { inputs: { named: bobs } });
    for (const file of [own, bobs]) {
      const reply = await call(
        server.origin,
        "GET",
        `/v1/agent/run/${held.runId}/uploads/${file}?agent_id=${held.agentId}`,
        { key: held.key, headers: { [AGENT_PROTOCOL_HEADER]: "1" } },
      );
      expect(reply.status, file).toBe(404);
      expect(reply.body).toEqual({ detail: "The run takes no such upload as a file input" });
    }
  });

  it("of another protocol version is refused before anything is done", async () => {
    const agentId = newAgentId();
    const key = await server.keyFor("alice", ["agent"]);
    const reply = await agentPost(
      "/v1/agent/claim",
      key,
      { agent_id: agentId, name: "old", version: "0.0.1", wait: 0 },
      "0",
    );
    expect(reply.status).toBe(426);
    expect(reply.body).toEqual({
      detail:
        "This server speaks agent protocol 1, the agent protocol 0: use an agent of the server's version",
    });
    const listed = await call(server.origin, "GET", "/v1/agent/list", { key: alice });
    expect((listed.body as { id: string }[]).map((a) => a.id)).not.toContain(agentId);
  });

  it("takes neither cloud runs nor another owner's client runs", async () => {
    await server.importSkillYaml("bob", AGENT_SKILL_YAML);
    const cloud = await server.repos.runs.create({
      owner: "alice",
      skill: { id: AGENT_SKILL, name: "Agent contract" },
      inputs: {},
    });
    const bobs = await server.repos.runs.create({
      owner: "bob",
      skill: { id: AGENT_SKILL, name: "Agent contract" },
      inputs: {},
      client: { timeoutMs: 60_000 },
    });
    const key = await server.keyFor("alice", ["agent"]);
    const reply = await agentPost("/v1/agent/claim", key, {
      agent_id: newAgentId(),
      name: "greedy",
      version: "0.0.2",
      wait: 0,
    });
    expect(reply.status).toBe(204);
    for (const [id, owner] of [
      [cloud.id, alice],
      [bobs.id, await server.keyFor("bob")],
    ] as const) {
      const run = await call(server.origin, "GET", `/v1/run/${id}`, { key: owner });
      expect(run.body).toMatchObject({ state: null });
    }
  });

  it("sends a job's secrets to the agent that claimed it, once", async () => {
    await server.importSkillYaml(
      "carol",
      "id: skill_secretive\nname: Secretive\nsteps:\n  - set: { t: '{{ secrets.TOKEN }}' }\n",
    );
    await server.repos.secrets.put("carol", "TOKEN", "carol-token-value");
    const run = await server.repos.runs.create({
      owner: "carol",
      skill: { id: "skill_secretive", name: "Secretive" },
      inputs: {},
      client: { timeoutMs: 60_000 },
    });
    const key = await server.keyFor("carol", ["agent"]);
    const claim = () =>
      agentPost("/v1/agent/claim", key, {
        agent_id: newAgentId(),
        name: "a",
        version: "0.0.2",
        wait: 0,
      });
    const first = await claim();
    expect(first.body).toMatchObject({ run_id: run.id, secrets: { TOKEN: "carol-token-value" } });
    // Nothing gives the job out again: another claim finds nothing.
    expect((await claim()).status).toBe(204);
  });
});
