import { afterEach, describe, expect, it } from "vitest";
import type { RunEvent, RunSession } from "../src/domain/api-types.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call } from "./support/http.js";
import { RunClient } from "./support/runs.js";
import { type SkillrunProcess, startAgentProcess } from "./support/skillrun-process.js";

/**
 * Browser skills on real `skillrun agent` processes: the agent's Chromium, its video and files
 * sent to the server, an ask answered through the API; an agent SIGKILLed mid-run, whose run
 * follows the rules of a lost worker, and a second agent that takes the next run.
 */

const ORDER = `
id: skill_agent_order
name: Agent order
inputs:
  - { json_key: shop_url, data_type: string }
steps:
  - goto: "{{ inputs.shop_url }}"
  - id: who
    ask: { prompt: "Who orders?", schema: { type: string }, save_as: name, timeout: 1m }
  - fill: { selector: "#name", value: "{{ data.name }}" }
  - screenshot: { save_as: form }
  - extract: { selector: "#products .name", all: true, save_as: plans }
`;

// A browser step (effects) then a long wait: lost during it, the run may not be re-run.
const PATIENT = `
id: skill_agent_patient
name: Agent patient
inputs:
  - { json_key: shop_url, data_type: string }
steps:
  - goto: "{{ inputs.shop_url }}"
  - id: nap
    wait: 60s
`;

const servers: TestServer[] = [];
const agents: SkillrunProcess[] = [];

afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.stop("SIGKILL")));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function setUp() {
  // Short leases, so that a lost agent's run is recovered within seconds.
  const server = await startTestServer({
    worker: { concurrency: 1, pollMs: 50, leaseMs: 2000 },
    env: { WORKER_LEASE_SECONDS: "2" },
  });
  servers.push(server);
  await server.importSkillYaml("alice", ORDER, PATIENT);
  const client = new RunClient(server.origin, await server.keyFor("alice"));
  const agentKey = await server.keyFor("alice", ["agent"]);
  return { server, client, agentKey, shopUrl: `${server.origin}/demo/` };
}

async function agent(server: TestServer, key: string, name: string) {
  const started = await startAgentProcess(server.origin, key, { name });
  agents.push(started);
  return started;
}

async function startClientRun(client: RunClient, skillId: string, inputs: object) {
  const reply = await call(client.origin, "POST", "/v1/run/", {
    key: client.key,
    json: { skill_id: skillId, environment: "client", inputs },
  });
  expect(reply.status, reply.text).toBe(200);
  return reply.body as RunSession;
}

async function waitForEvent(
  client: RunClient,
  runId: string,
  matches: (event: RunEvent) => boolean,
): Promise<RunEvent> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const found = (await client.events(runId)).find(matches);
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`no such event of ${runId}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("browser runs on an agent", () => {
  it("runs a browser skill end to end: an ask answered, its video and files kept", async () => {
    const { server, client, agentKey, shopUrl } = await setUp();
    await agent(server, agentKey, "desk");
    const run = await startClientRun(client, "skill_agent_order", { shop_url: shopUrl });
    await client.waitFor(run.id, (r) => r.state === "pause", 30_000);
    const resumed = await call(server.origin, "POST", `/v1/run/${run.id}/resume`, {
      key: client.key,
      json: { input: "Grace" },
    });
    expect(resumed.status, resumed.text).toBe(200);
    const ended = await client.ended(run.id, 60_000);
    expect(ended.state, JSON.stringify(ended.data)).toBe("finish");
    expect(ended.data).toMatchObject({
      name: "Grace",
      plans: ["Basic plan", "Pro plan", "Team plan"],
    });

    // The video, sent by the agent, served by the server.
    const withVideo = await client.waitFor(run.id, (r) => typeof r.video_url === "string");
    const video = await call(server.origin, "GET", withVideo.video_url as string);
    expect(video.status).toBe(200);
    expect(video.headers.get("content-type")).toBe("video/webm");
    // A WebM (Matroska) file starts with the EBML magic number.
    expect([...video.bytes.subarray(0, 4)]).toEqual([0x1a, 0x45, 0xdf, 0xa3]);
    const events = await client.events(run.id);
    expect(events.some((e) => e.type === "video_recorded")).toBe(true);

    // The screenshot, a PNG, listed and served as a worker's run files are.
    const files = await call(server.origin, "GET", `/v1/run/${run.id}/files`, { key: client.key });
    expect(files.status, files.text).toBe(200);
    const [shot] = files.body as { name: string; url: string; content_type: string }[];
    expect(shot?.content_type).toBe("image/png");
    const png = await call(server.origin, "GET", shot?.url as string);
    expect([...png.bytes.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
  }, 180_000);

  it("a SIGKILLed agent's run follows the lost-worker rules; a second agent takes the next run", async () => {
    const { server, client, agentKey, shopUrl } = await setUp();
    const first = await agent(server, agentKey, "first");
    const lost = await startClientRun(client, "skill_agent_patient", { shop_url: shopUrl });
    await waitForEvent(client, lost.id, (e) => e.type === "step_started" && e.step?.id === "nap");
    first.signal("SIGKILL");
    await first.exited;

    // Lost after a step with effects (the goto): not re-run, at most once.
    const ended = await client.ended(lost.id, 30_000);
    expect(ended.state).toBe("reset");
    expect((ended.data as { error: { message: string } }).error.message).toMatch(
      /^worker lost during step nap; not re-run because it may have had effects \(worker agent:agent_/,
    );

    const second = await agent(server, agentKey, "second");
    const next = await startClientRun(client, "skill_agent_order", { shop_url: shopUrl });
    await client.waitFor(next.id, (r) => r.state === "pause", 30_000);
    const claimed = (await client.events(next.id)).find((e) => e.type === "run_claimed");
    expect(claimed?.message).toBe("claimed by agent second");
    const listed = await call(server.origin, "GET", "/v1/agent/list", { key: client.key });
    const byName = new Map(
      (listed.body as { name: string; runs: string[] }[]).map((a) => [a.name, a]),
    );
    expect(byName.get("second")?.runs).toEqual([next.id]);
    expect(byName.get("first")?.runs).toEqual([]);
    expect(second.id).not.toBe(first.id);
    await call(server.origin, "POST", `/v1/run/${next.id}/resume`, {
      key: client.key,
      json: { input: "Ada" },
    });
    expect((await client.ended(next.id, 60_000)).state).toBe("finish");
  }, 180_000);
});
