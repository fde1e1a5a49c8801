import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { RunEvent, RunSession } from "../src/domain/api-types.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call } from "./support/http.js";
import { RunClient, typesOf } from "./support/runs.js";
import { type SkillrunProcess, startAgentProcess } from "./support/skillrun-process.js";

/**
 * `environment: client` runs executed by real `skillrun agent` processes (the built command) on
 * this machine, against a real server with a cloud worker beside it.
 */

const GREET = `
id: skill_greet
name: Greet
inputs:
  - { json_key: who, data_type: string }
  - { json_key: pin, data_type: string, secret: true }
steps:
  - log: "hello {{ inputs.who }}"
  - set: { greeting: "Hello, {{ inputs.who }}!", pin: "{{ inputs.pin }}", token: "{{ secrets.TOKEN }}" }
`;

const ASK = `
id: skill_ask
name: Ask
steps:
  - id: question
    ask: { prompt: "Which colour?", schema: { type: string }, save_as: colour, timeout: 1m }
  - set: { chosen: "{{ data.colour }}" }
`;

const NAP = `
id: skill_nap
name: Nap
steps:
  - log: napping
  - id: nap
    wait: 60s
  - set: { woke: true }
`;

// Reads an upload and a file fetched from a URL, both given as `file` inputs.
const FILES = `
id: skill_agent_files
name: Agent files
inputs:
  - { json_key: orders, data_type: file }
  - { json_key: notes, data_type: file }
steps:
  - read_file: { file: "{{ inputs.orders }}", as: csv, save_as: rows }
  - read_file: { file: "{{ inputs.notes }}", as: lines, save_as: lines }
  - set: { names: ["{{ inputs.orders.name }}", "{{ inputs.notes.name }}"] }
`;

const servers: TestServer[] = [];
const agents: SkillrunProcess[] = [];

afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.stop("SIGKILL")));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function setUp(env: Record<string, string> = {}) {
  const server = await startTestServer({ worker: { concurrency: 2, pollMs: 50 }, env });
  servers.push(server);
  await server.importSkillYaml("alice", GREET, ASK, NAP, FILES);
  await server.repos.secrets.put("alice", "TOKEN", "tok-secret-value");
  const client = new RunClient(server.origin, await server.keyFor("alice"));
  const agentKey = await server.keyFor("alice", ["agent"]);
  return { server, client, agentKey };
}

async function agent(server: TestServer, key: string, name = "laptop") {
  const started = await startAgentProcess(server.origin, key, { name });
  agents.push(started);
  return started;
}

async function startClientRun(
  client: RunClient,
  skillId: string,
  inputs?: Record<string, unknown>,
): Promise<RunSession> {
  const reply = await call(client.origin, "POST", "/v1/run/", {
    key: client.key,
    json: { skill_id: skillId, environment: "client", ...(inputs && { inputs }) },
  });
  expect(reply.status, reply.text).toBe(200);
  return reply.body as RunSession;
}

describe("runs on the user's machine", () => {
  it("a client run waits for an agent, never taken by a cloud worker, and says so", async () => {
    const { client } = await setUp();
    const run = await startClientRun(client, "skill_greet", { who: "Ada", pin: "1234" });
    expect(run).toMatchObject({ environment: "client", state: null, waiting_for: "agent" });
    // A cloud run started after it is taken and finished by the worker meanwhile.
    const cloud = await client.start("skill_greet", { who: "Bo", pin: "1" });
    expect(cloud.environment).toBe("cloud");
    expect((await client.ended(cloud.id)).state).toBe("finish");
    expect(await client.get(run.id)).toMatchObject({
      environment: "client",
      state: null,
      waiting_for: "agent",
    });
  });

  it("an agent executes a client run: its log, data and secrets, and the agent is listed", async () => {
    const { server, client, agentKey } = await setUp();
    const laptop = await agent(server, agentKey);
    const run = await startClientRun(client, "skill_greet", { who: "Ada", pin: "1234" });
    const ended = await client.ended(run.id);
    expect(ended.state).toBe("finish");
    expect(ended.environment).toBe("client");
    // Secret values are masked by the agent's engine before they leave it, as a worker's.
    expect(ended.data).toEqual({ greeting: "Hello, Ada!", pin: "***", token: "***" });
    const events = await client.events(run.id);
    expect(typesOf(events)).toEqual([
      "run_claimed",
      "run_started",
      "step_started",
      "log",
      "step_finished",
      "step_started",
      "data_updated",
      "step_finished",
      "run_finished",
    ]);
    expect(events[0]?.message).toBe("claimed by agent laptop");
    expect(events.find((e) => e.type === "log")?.message).toBe("hello Ada");
    expect(JSON.stringify(events)).not.toContain("tok-secret-value");

    const listed = await call(server.origin, "GET", "/v1/agent/list", { key: client.key });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body).toEqual([
      expect.objectContaining({ id: laptop.id, name: "laptop", connected: true, runs: [] }),
    ]);
  });

  it("an ask on an agent's run is answered through the API", async () => {
    const { server, client, agentKey } = await setUp();
    await agent(server, agentKey);
    const run = await startClientRun(client, "skill_ask");
    await client.waitFor(run.id, (r) => r.state === "pause");
    const resumed = await call(server.origin, "POST", `/v1/run/${run.id}/resume`, {
      key: client.key,
      json: { input: "teal" },
    });
    expect(resumed.status, resumed.text).toBe(200);
    const ended = await client.ended(run.id);
    expect(ended).toMatchObject({ state: "finish", data: { colour: "teal", chosen: "teal" } });
    expect(typesOf(await client.events(run.id))).toContain("run_paused");
  });

  it("a cancel stops an agent's run, which records where it stopped", async () => {
    const { server, client, agentKey } = await setUp();
    await agent(server, agentKey);
    const run = await startClientRun(client, "skill_nap");
    await waitForEvent(client, run.id, (e) => e.type === "step_started" && e.step?.id === "nap");
    expect(await client.cancel(run.id)).toBe("cancel");
    const cancelled = await waitForEvent(client, run.id, (e) => e.type === "run_cancelled");
    expect(cancelled.step?.id).toBe("nap");
    expect((await client.get(run.id)).state).toBe("cancel");
  });

  it("a client run no agent takes within its time limit ends in timeout", async () => {
    const server = await startTestServer({ worker: { pollMs: 50, leaseMs: 1000 } });
    servers.push(server);
    await server.importSkillYaml(
      "alice",
      "id: skill_brief\nname: Brief\ntimeout: 2s\nsteps:\n  - log: x\n",
    );
    const client = new RunClient(server.origin, await server.keyFor("alice"));
    const run = await startClientRun(client, "skill_brief");
    const ended = await client.ended(run.id);
    expect(ended).toMatchObject({ state: "timeout", environment: "client", waiting_for: null });
    expect((ended.data as { error: { message: string } }).error.message).toBe(
      "no agent took the run within its time limit; it waited for an agent since it started",
    );
    expect(
      Date.parse(ended.end_time as string) - Date.parse(ended.start_time),
    ).toBeGreaterThanOrEqual(2000);
    expect(typesOf(await client.events(run.id))).toEqual(["run_timed_out"]);
  });

  it("a client run's file inputs reach its agent: an upload from the server, a URL fetched by the agent", async () => {
    const { server, client, agentKey } = await setUp();
    const form = new FormData();
    form.append("file", new Blob(["order,qty\n7,2\n"], { type: "text/csv" }), "orders.csv");
    const uploaded = await fetch(`${server.origin}/v1/file`, {
      method: "POST",
      headers: { authorization: `Bearer ${client.key}` },
      body: form,
    });
    const upload = (await uploaded.json()) as { id: string };
    // A site on the agent's side: the agent, not the server, fetches it.
    const site = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" }).end("first\nsecond\n");
    });
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    try {
      const notes = `http://127.0.0.1:${(site.address() as AddressInfo).port}/notes.txt`;
      await agent(server, agentKey);
      const run = await startClientRun(client, "skill_agent_files", { orders: upload.id, notes });
      const ended = await client.ended(run.id);
      expect(ended.state, JSON.stringify(ended.data)).toBe("finish");
      expect(ended.data).toEqual({
        rows: [{ order: "7", qty: "2" }],
        lines: ["first", "second"],
        names: ["orders.csv", "notes.txt"],
      });
      // The inputs are the run's files, as a worker's run keeps them.
      const files = await call(server.origin, "GET", `/v1/run/${run.id}/files`, {
        key: client.key,
      });
      expect((files.body as { name: string }[]).map((file) => file.name).sort()).toEqual([
        "notes.txt",
        "orders.csv",
      ]);
    } finally {
      site.close();
    }
  });

  it("a client run whose upload is gone ends in reset naming the input, before any step", async () => {
    const { server, client, agentKey } = await setUp();
    const gone = "file_00000000-0000-7000-8000-000000000000";
    // Queued as if its upload existed then; retention removed it since.
    const run = await server.repos.runs.create({
      owner: "alice",
      skill: { id: "skill_agent_files", name: "Agent files" },
      inputs: { orders: gone, notes: gone },
      client: { timeoutMs: 60_000 },
    });
    await agent(server, agentKey);
    const ended = await client.ended(run.id);
    expect(ended.state).toBe("reset");
    expect((ended.data as { error: unknown }).error).toEqual({
      step: null,
      message: `file input "orders": the uploaded file ${gone} no longer exists`,
    });
    expect(typesOf(await client.events(run.id))).toEqual(["run_claimed", "run_failed"]);
  });

  it("a client run cannot be rerun from a step: it keeps no checkpoints, and says so", async () => {
    const { server, client, agentKey } = await setUp();
    await agent(server, agentKey);
    const run = await startClientRun(client, "skill_greet", { who: "Ada", pin: "1234" });
    expect((await client.ended(run.id)).state).toBe("finish");
    const rerun = await call(server.origin, "POST", `/v1/run/${run.id}/rerun`, {
      key: client.key,
      json: { from_step: "step 2" },
    });
    expect(rerun.status, rerun.text).toBe(422);
    expect(rerun.body).toMatchObject({
      detail: [
        {
          loc: ["body", "from_step"],
          msg: "Value error, a client run keeps no checkpoints (its agent sends none), so it cannot be rerun from a step; start it again with POST /run/",
        },
      ],
    });
  });

  it("the agent's key reads nothing but the agent endpoints", async () => {
    const { server, client, agentKey } = await setUp();
    const run = await startClientRun(client, "skill_greet", { who: "Ada", pin: "1234" });
    for (const path of [`/v1/run/${run.id}`, "/v1/run/list", "/v1/agent/list", "/v1/skill/list"]) {
      const reply = await call(server.origin, "GET", path, { key: agentKey });
      expect(reply.status, path).toBe(403);
    }
  });
});

/** Polls the run's events until one matches; fails after 20 s. */
async function waitForEvent(
  client: RunClient,
  runId: string,
  matches: (event: RunEvent) => boolean,
): Promise<RunEvent> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = (await client.events(runId)).find(matches);
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`no such event of ${runId}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
