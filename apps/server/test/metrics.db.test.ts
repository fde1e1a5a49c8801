import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT_PROTOCOL, AGENT_PROTOCOL_HEADER } from "../src/agent-api/protocol.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { AGENT_SKILL, AGENT_SKILL_YAML, heldClientRun } from "./support/contract-agents.js";
import { call } from "./support/http.js";
import { outsideAddress } from "./support/outside-address.js";
import { RunClient } from "./support/runs.js";
import { type SkillrunProcess, startWorkerProcess } from "./support/skillrun-process.js";
import { QUICK_SKILL, SLEEPY_SKILL } from "./support/skills.js";
import { WebhookReceiver } from "./support/webhook-receiver.js";
import { WebhookApi } from "./support/webhooks.js";

/**
 * GET /metrics over real HTTP, on TEST_FLAVOUR's database: what it names, how its counters move
 * with real runs, that its labels stay bounded, and who may read it.
 */

/** One sample of the exposition: `name{labels} value`. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function samplesOf(text: string): Sample[] {
  return text
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not a sample line: ${line}`);
      const labels: Record<string, string> = {};
      for (const pair of (match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
        labels[pair[1] as string] = pair[2] as string;
      }
      return { name: match[1] as string, labels, value: Number(match[3]) };
    });
}

/** The value of the sample named so with these labels (0 when absent). */
function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number {
  const sample = samplesOf(text).find(
    (s) =>
      s.name === name &&
      Object.entries(labels).every(([key, value]) => s.labels[key] === value) &&
      Object.keys(s.labels).length === Object.keys(labels).length,
  );
  return sample?.value ?? 0;
}

async function scrape(origin: string, headers: Record<string, string> = {}): Promise<string> {
  const reply = await call(origin, "GET", "/metrics", { headers });
  expect(reply.status, reply.text).toBe(200);
  return reply.text;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`not reached: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("GET /metrics on a server with a worker", () => {
  let server: TestServer;
  let runs: RunClient;
  let hooks: WebhookApi;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    server = await startTestServer({ worker: { concurrency: 2 }, webhooks: { pollMs: 50 } });
    await server.importSkillYaml("alice", QUICK_SKILL, SLEEPY_SKILL);
    const alice = await server.keyFor("alice");
    runs = new RunClient(server.origin, alice);
    hooks = new WebhookApi(server.origin, alice);
    await receiver.start();
  });

  afterAll(async () => {
    await server?.close();
    await receiver.close();
  });

  it("names every metric with its type, process metrics included, as Prometheus text", async () => {
    const reply = await call(server.origin, "GET", "/metrics");
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const types = Object.fromEntries(
      [...reply.text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1], m[2]]),
    );
    expect(types).toMatchObject({
      skillrun_runs_started_total: "counter",
      skillrun_runs_ended_total: "counter",
      skillrun_run_duration_seconds: "histogram",
      skillrun_run_queue_wait_seconds: "histogram",
      skillrun_step_duration_seconds: "histogram",
      skillrun_queued_runs: "gauge",
      skillrun_worker_slots: "gauge",
      skillrun_browser_launch_seconds: "histogram",
      skillrun_webhook_deliveries_total: "counter",
      skillrun_http_requests_total: "counter",
      process_cpu_user_seconds_total: "counter",
      process_resident_memory_bytes: "gauge",
      nodejs_eventloop_lag_seconds: "gauge",
    });
    expect(sampleValue(reply.text, "skillrun_worker_slots", { state: "idle" })).toBe(2);
    expect(sampleValue(reply.text, "skillrun_worker_slots", { state: "busy" })).toBe(0);
  });

  it("moves the run, step, queue, webhook and request counters with a real run", async () => {
    await hooks.register(receiver, ["run.finished"]);
    const before = await scrape(server.origin);
    const run = await runs.start("skill_quick", { n: 21 });
    await runs.waitFor(run.id, (r) => r.state === "finish");
    const after = await until(
      () => scrape(server.origin),
      (text) =>
        sampleValue(text, "skillrun_webhook_deliveries_total", { result: "delivered" }) >
        sampleValue(before, "skillrun_webhook_deliveries_total", { result: "delivered" }),
    );
    const moved = (name: string, labels: Record<string, string> = {}) =>
      sampleValue(after, name, labels) - sampleValue(before, name, labels);
    expect(moved("skillrun_runs_started_total")).toBe(1);
    expect(moved("skillrun_runs_ended_total", { state: "finish" })).toBe(1);
    expect(moved("skillrun_run_duration_seconds_count")).toBe(1);
    expect(moved("skillrun_run_queue_wait_seconds_count")).toBe(1);
    // The skill's two steps, each by its kind.
    expect(moved("skillrun_step_duration_seconds_count", { kind: "set" })).toBe(1);
    expect(moved("skillrun_step_duration_seconds_count", { kind: "log" })).toBe(1);
    expect(moved("skillrun_webhook_deliveries_total", { result: "delivered" })).toBe(1);
    expect(moved("skillrun_http_requests_total", { operation: "startRun", status: "200" })).toBe(1);
    // Reading the run is counted under its operation, never its address.
    expect(
      moved("skillrun_http_requests_total", { operation: "getRun", status: "200" }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      samplesOf(after).some((s) => Object.values(s.labels).some((v) => v.includes(run.id))),
    ).toBe(false);
  });

  it("counts a cancelled run once, where the cancel was written, and not again by its worker", async () => {
    const before = await scrape(server.origin);
    const run = await runs.start("skill_sleepy");
    await runs.waitFor(run.id, (r) => r.state === "play");
    await runs.cancel(run.id);
    // The worker has stopped it once its slot is free again.
    await until(
      () => scrape(server.origin),
      (text) => sampleValue(text, "skillrun_worker_slots", { state: "busy" }) === 0,
    );
    const after = await scrape(server.origin);
    const cancelled = (text: string) =>
      sampleValue(text, "skillrun_runs_ended_total", { state: "cancel" });
    expect(cancelled(after) - cancelled(before)).toBe(1);
  });

  it("keeps the request counter's series few whatever paths clients send", async () => {
    const paths = Array.from({ length: 1000 }, (_, i) => {
      const noise = randomUUID();
      return [`/v1/${noise}`, `/${noise}`, `/v1/run/${noise}`, `/v1/skill/${noise}/x`][i % 4];
    });
    for (let i = 0; i < paths.length; i += 50) {
      await Promise.all(
        paths.slice(i, i + 50).map((path) => call(server.origin, "GET", path as string)),
      );
    }
    const text = await scrape(server.origin);
    const series = samplesOf(text).filter((s) => s.name === "skillrun_http_requests_total");
    expect(series.length).toBeLessThan(30);
    expect(series.some((s) => (s.labels.operation ?? "").includes("-"))).toBe(false);
    // Every one of them was counted, under a fixed name.
    const total = series.reduce((sum, s) => sum + s.value, 0);
    expect(total).toBeGreaterThanOrEqual(1000);
  });
});

describe("the queue gauge", () => {
  let server: TestServer;

  beforeAll(async () => {
    // No worker: the runs stay queued.
    server = await startTestServer();
    await server.importSkillYaml("alice", QUICK_SKILL);
    await server.importSkillYaml("bob", QUICK_SKILL);
  });

  afterAll(async () => {
    await server?.close();
  });

  it("reads how many runs are queued, every owner's, from the database", async () => {
    const alice = new RunClient(server.origin, await server.keyFor("alice"));
    const bob = new RunClient(server.origin, await server.keyFor("bob"));
    expect(sampleValue(await scrape(server.origin), "skillrun_queued_runs")).toBe(0);
    await alice.start("skill_quick", { n: 1 });
    const second = await alice.start("skill_quick", { n: 2 });
    await bob.start("skill_quick", { n: 3 });
    expect(sampleValue(await scrape(server.origin), "skillrun_queued_runs")).toBe(3);
    await alice.cancel(second.id);
    const text = await scrape(server.origin);
    expect(sampleValue(text, "skillrun_queued_runs")).toBe(2);
    expect(sampleValue(text, "skillrun_runs_ended_total", { state: "cancel" })).toBe(1);
    // No worker here: no slots to report.
    expect(text).not.toContain("skillrun_worker_slots{");
  });
});

describe("runs ended by no worker's ending", () => {
  let server: TestServer;

  beforeAll(async () => {
    // No worker: each run below is ended by a sweep or an agent's call alone.
    server = await startTestServer();
    await server.importSkillYaml("alice", QUICK_SKILL, AGENT_SKILL_YAML);
  });

  afterAll(async () => {
    await server?.close();
  });

  const ended = async (state: string) =>
    sampleValue(await scrape(server.origin), "skillrun_runs_ended_total", { state });
  const pause = () => new Promise((resolve) => setTimeout(resolve, 20));

  it("counts a lost worker's run reset, a client run no agent took, and an agent's ending", async () => {
    const skill = { id: "skill_quick", name: "Quick" };
    const [reset, timeout, finish] = [
      await ended("reset"),
      await ended("timeout"),
      await ended("finish"),
    ];

    // Claimed by a worker that is never heard from again: its lease runs out.
    await server.repos.runs.create({ owner: "alice", skill, inputs: { n: 1 } });
    expect(await server.repos.runExecution.claim("worker-gone", 1)).not.toBeNull();
    await pause();
    expect(await server.repos.runExecution.recoverLost(1)).toBe(1);

    // A client run whose time limit passed while it waited for an agent.
    await server.repos.runs.create({
      owner: "alice",
      skill,
      inputs: { n: 2 },
      client: { timeoutMs: 1 },
    });
    await pause();
    expect(await server.repos.runExecution.expireWaitingClientRuns()).toBe(1);

    // A client run an agent ended.
    const held = await heldClientRun(server, AGENT_SKILL);
    const end = await call(server.origin, "POST", `/v1/agent/run/${held.runId}/end`, {
      key: held.key,
      json: { agent_id: held.agentId, state: "finish", events: [], duration_ms: 1500 },
      headers: { [AGENT_PROTOCOL_HEADER]: AGENT_PROTOCOL },
    });
    expect(end.status, end.text).toBe(200);

    expect(await ended("reset")).toBe(reset + 1);
    expect(await ended("timeout")).toBe(timeout + 1);
    expect(await ended("finish")).toBe(finish + 1);
  });
});

describe("who may read the metrics", () => {
  const servers: TestServer[] = [];

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  async function serverWith(env: Record<string, string>): Promise<TestServer> {
    const server = await startTestServer({ env });
    servers.push(server);
    return server;
  }

  it("answers loopback only when METRICS_TOKEN is unset, whatever X-Forwarded-For says", async () => {
    const server = await serverWith({ HOST: "0.0.0.0", TRUST_PROXY: "true" });
    const port = new URL(server.origin).port;
    const outside = `http://${outsideAddress()}:${port}`;
    const refused = await call(outside, "GET", "/metrics");
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      detail: "metrics are answered on loopback only unless METRICS_TOKEN is set",
    });
    const spoofed = await call(outside, "GET", "/metrics", {
      headers: { "x-forwarded-for": "127.0.0.1" },
    });
    expect(spoofed.status).toBe(403);
    expect((await call(`http://127.0.0.1:${port}`, "GET", "/metrics")).status).toBe(200);
  });

  it("asks for METRICS_TOKEN as a bearer when it is set, on loopback too", async () => {
    const token = "metrics-token-0123456789";
    const server = await serverWith({ HOST: "0.0.0.0", METRICS_TOKEN: token });
    const port = new URL(server.origin).port;
    for (const origin of [server.origin, `http://${outsideAddress()}:${port}`]) {
      const missing = await call(origin, "GET", "/metrics");
      expect(missing.status).toBe(401);
      expect(missing.headers.get("www-authenticate")).toBe("Bearer");
      expect(missing.body).toEqual({ detail: "Not authenticated" });
      const wrong = await call(origin, "GET", "/metrics", {
        headers: { authorization: `Bearer ${token}x` },
      });
      expect(wrong.status).toBe(401);
      const right = await call(origin, "GET", "/metrics", {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(right.status).toBe(200);
      expect(right.text).toContain("# TYPE skillrun_runs_started_total counter");
    }
  });

  it("refuses a METRICS_TOKEN too short to be a secret", async () => {
    await expect(serverWith({ METRICS_TOKEN: "short" })).rejects.toThrow(/METRICS_TOKEN/);
  });
});

describe("a `skillrun worker` process", () => {
  let server: TestServer;
  let worker: SkillrunProcess | undefined;

  beforeAll(async () => {
    server = await startTestServer();
    await server.importSkillYaml("alice", QUICK_SKILL);
  });

  afterAll(async () => {
    await worker?.stop();
    await server?.close();
  });

  it("answers its own metrics on METRICS_PORT: its slots, and the runs it executed", async () => {
    worker = await startWorkerProcess(server.databaseUrl, {
      METRICS_PORT: "0",
      WORKER_CONCURRENCY: "3",
    });
    const line = await worker.printed(/Metrics: (http:\S+)\/metrics/);
    const origin = (/Metrics: (http:\S+)\/metrics/.exec(line) as RegExpExecArray)[1] as string;
    const runs = new RunClient(server.origin, await server.keyFor("alice"));
    const run = await runs.start("skill_quick", { n: 2 });
    await runs.waitFor(run.id, (r) => r.state === "finish");
    const text = await until(
      () => scrape(origin),
      (t) => sampleValue(t, "skillrun_runs_ended_total", { state: "finish" }) === 1,
    );
    expect(sampleValue(text, "skillrun_runs_started_total")).toBe(1);
    expect(sampleValue(text, "skillrun_worker_slots", { state: "idle" })).toBe(3);
    expect(sampleValue(text, "skillrun_step_duration_seconds_count", { kind: "set" })).toBe(1);
    // The server, which executed nothing, counted nothing of it.
    expect(sampleValue(await scrape(server.origin), "skillrun_runs_started_total")).toBe(0);
    // It answers nothing else.
    expect((await call(origin, "GET", "/v1/run/list")).status).toBe(404);
  });
});
