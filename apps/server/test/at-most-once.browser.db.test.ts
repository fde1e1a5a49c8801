import { existsSync, readdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunEvent } from "../src/domain/api-types.js";
import {
  startTestServer,
  TEST_VIDEO_SECRET,
  type TestServer,
} from "../src/test-support/test-server.js";
import { call } from "./support/http.js";
import { RunClient, typesOf } from "./support/runs.js";
import { type SkillrunProcess, startWorkerProcess } from "./support/skillrun-process.js";

/**
 * Side effects at most once: `skillrun worker` processes killed with SIGKILL (lost: another
 * worker recovers the run once its lease lapses) or stopped with SIGTERM and a short grace, while
 * their run waits after a request that changed something at a real receiver, or while that
 * request is under way. The receiver counts what it was sent; the test server beside the workers
 * (no worker of its own) shares their database and is how the test reads the runs. Each
 * `on_worker_loss` choice has its skill: `reset` and `restart` as they always were, `resume` (the
 * default) going on from the checkpoint before the step the worker was lost in.
 */

const EFFECTS = `
id: skill_submit
name: Submit then wait
on_worker_loss: reset
inputs:
  - { json_key: base, data_type: string }
steps:
  - http: { url: "{{ inputs.base }}/read" }
  - id: submit
    http: { url: "{{ inputs.base }}/submit", method: POST, json: { order: 1 } }
  - id: nap
    wait: 30s
  - set: { done: true }
`;

const READS_ONLY = `
id: skill_reads
name: Read then wait
on_worker_loss: reset
inputs:
  - { json_key: base, data_type: string }
steps:
  - http: { url: "{{ inputs.base }}/read" }
  - id: nap
    wait: 3s
  - set: { done: true }
`;

// Opted back in, in a browser: its screenshot and video of each attempt are its own.
const RESTARTS = `
id: skill_restarts
name: Submit, look, wait; restart when lost
on_worker_loss: restart
inputs:
  - { json_key: base, data_type: string }
steps:
  - goto: "{{ inputs.base }}/page"
  - screenshot: { save_as: page }
  - id: submit
    http: { url: "{{ inputs.base }}/submit", method: POST }
  - id: nap
    wait: 3s
  - set: { done: true }
`;

// The default: a lost worker's run goes on from its last checkpoint.
const RESUMES = `
id: skill_resumes
name: Submit, wait, submit slowly
inputs:
  - { json_key: base, data_type: string }
steps:
  - id: submit
    http: { url: "{{ inputs.base }}/submit", method: POST, json: { order: 1 } }
  - set: { submitted: true }
  - id: nap
    wait: 3s
  - id: slow
    http: { url: "{{ inputs.base }}/slow", method: POST, timeout: 60s }
  - set: { done: true }
`;

let receiver: Server;
let base: string;
/** How long `/slow` takes to answer. */
let slowMs = 0;
/** Requests the receiver was sent, by path. */
const hits = new Map<string, number>();
let server: TestServer;
let client: RunClient;
let videoDir: string;
const processes: SkillrunProcess[] = [];

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://receiver").pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path === "/slow") {
      // Answered after a while: long enough for its worker to be killed while it waits.
      setTimeout(() => response.writeHead(200).end("{}"), Number(slowMs));
    } else if (path === "/page") {
      response.writeHead(200, { "content-type": "text/html" }).end("<h1>Order form</h1>");
    } else {
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    }
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

beforeEach(async () => {
  hits.clear();
  slowMs = 0;
  server = await startTestServer();
  await server.importSkillYaml("alice", EFFECTS, READS_ONLY, RESTARTS, RESUMES);
  client = new RunClient(server.origin, await server.keyFor("alice"));
  // The workers keep videos and files where the test server serves them from.
  videoDir = server.fileStore.dir;
});

afterEach(async () => {
  await Promise.all(processes.splice(0).map((started) => started.stop("SIGKILL")));
  await server?.close();
});

async function worker(env: Record<string, string> = {}) {
  const started = await startWorkerProcess(server.databaseUrl, {
    LOG_LEVEL: "info",
    VIDEO_DIR: videoDir,
    VIDEO_SIGNING_SECRET: TEST_VIDEO_SECRET,
    WORKER_CONCURRENCY: "1",
    WORKER_LEASE_SECONDS: "1",
    ALLOW_PRIVATE_NETWORKS: "true",
    ...env,
  });
  processes.push(started);
  return started;
}

/** Waits until the run has started its step `step` (`nap` by default). */
async function untilNap(runId: string, step = "nap"): Promise<void> {
  const deadline = Date.now() + 30_000;
  const napping = (events: RunEvent[]) =>
    events.some((event) => event.type === "step_started" && event.step?.id === step);
  while (!napping(await client.events(runId))) {
    if (Date.now() > deadline) throw new Error(`the run never reached its step ${step}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const workerOf = (event: RunEvent) => (event.data as { worker?: string } | null)?.worker;

async function claimsOf(runId: string): Promise<[string | undefined, number | null][]> {
  return (await client.events(runId))
    .filter((event) => event.type === "run_claimed")
    .map((event) => [workerOf(event), event.attempt ?? null]);
}

describe("a worker lost after a step with effects began", () => {
  it("ends the run in reset naming the step, and never sends the request again", async () => {
    const doomed = await worker();
    const { id } = await client.start("skill_submit", { base });
    await untilNap(id);
    await doomed.stop("SIGKILL");

    const rescuer = await worker();
    const run = await client.ended(id);
    expect(run.state).toBe("reset");
    expect(run.data).toEqual({
      error: {
        step: "nap",
        message: expect.stringMatching(
          new RegExp(
            `^worker lost during step nap; not re-run because it may have had effects \\(worker ${doomed.id} was lost`,
          ),
        ),
      },
    });
    expect(hits.get("/submit")).toBe(1);
    // Found by the rescuer's recovery, never claimed by it.
    expect(await claimsOf(id)).toEqual([[doomed.id, 1]]);
    const lost = (await client.events(id)).filter((event) => event.type === "worker_lost");
    expect(lost.map((event) => event.data)).toEqual([
      { worker: doomed.id, requeued: false, effects_step: "submit" },
    ]);
    expect(rescuer.id).not.toBe(doomed.id);
  });

  it("still re-runs a run that only read", async () => {
    const doomed = await worker();
    const { id } = await client.start("skill_reads", { base });
    await untilNap(id);
    await doomed.stop("SIGKILL");

    const rescuer = await worker();
    const run = await client.ended(id);
    expect(run.state).toBe("finish");
    expect(run.data).toEqual({ done: true });
    expect(hits.get("/read")).toBe(2);
    expect(await claimsOf(id)).toEqual([
      [doomed.id, 1],
      [rescuer.id, 2],
    ]);
  });

  it("re-runs a skill that says on_worker_loss: restart, keeping each attempt's video and files", async () => {
    const doomed = await worker();
    const { id } = await client.start("skill_restarts", { base });
    await untilNap(id);
    await doomed.stop("SIGKILL");

    const rescuer = await worker();
    const run = await client.ended(id);
    expect(run.state).toBe("finish");
    expect(hits.get("/submit")).toBe(2);
    expect(await claimsOf(id)).toEqual([
      [doomed.id, 1],
      [rescuer.id, 2],
    ]);
    // The first attempt's screenshot was moved aside before the second took its own.
    const screenshot = "screenshot-1-step-2-screenshot.png";
    expect(readdirSync(join(videoDir, `${id}-attempt-1-files`))).toEqual([screenshot]);
    expect(readdirSync(join(videoDir, `${id}-files`))).toEqual([screenshot]);
    expect(existsSync(join(videoDir, `${id}.webm`))).toBe(true);
    expect(run.video_url).not.toBeNull();
    const kept = (await client.events(id)).filter(
      (event) => event.type === "log" && event.message?.includes("earlier attempt"),
    );
    expect(kept.map((event) => event.message)).toEqual([
      `what an earlier attempt left is kept in the video store as ${id}-attempt-1.webm and ${id}-attempt-1-files/`,
    ]);
    // The API lists the files of the attempt that ran to the end, one screenshot.
    const files = await call(server.origin, "GET", `/v1/run/${id}/files`, { key: client.key });
    expect((files.body as { name: string }[]).map((file) => file.name)).toEqual([screenshot]);
  });
});

describe("a worker stopped with SIGTERM after a step with effects began", () => {
  it("ends the run in reset when the grace is over instead of putting it back in the queue", async () => {
    const executor = await worker({ SHUTDOWN_GRACE_SECONDS: "1" });
    const { id } = await client.start("skill_submit", { base });
    await untilNap(id);
    executor.signal("SIGTERM");
    expect(await executor.exited).toBe(0);

    const run = await client.get(id);
    expect(run.state).toBe("reset");
    expect(run.end_time).not.toBeNull();
    expect(run.data).toEqual({
      error: {
        step: "nap",
        message: `worker ${executor.id} shut down during step nap; not re-run because it may have had effects (a skill with on_worker_loss: restart is re-run instead)`,
      },
    });
    expect(typesOf(await client.events(id))).not.toContain("run_released");
    // Another worker finds nothing to do.
    await worker();
    expect((await client.get(id)).state).toBe("reset");
    expect(hits.get("/submit")).toBe(1);
  });
});

describe("a worker lost under on_worker_loss: resume (the default)", () => {
  it("goes on from the checkpoint before the step it was lost in, never repeating the request", async () => {
    const doomed = await worker();
    const { id } = await client.start("skill_resumes", { base });
    await untilNap(id);
    await doomed.stop("SIGKILL");

    const rescuer = await worker();
    const run = await client.ended(id);
    expect(run.state).toBe("finish");
    // The data the steps before saved came back with the checkpoint.
    expect(run.data).toEqual({ submitted: true, done: true });
    expect(hits.get("/submit")).toBe(1);
    expect(hits.get("/slow")).toBe(1);
    expect(await claimsOf(id)).toEqual([
      [doomed.id, 1],
      [rescuer.id, 2],
    ]);
    const events = await client.events(id);
    const resumed = events.filter((event) => event.message?.startsWith("going on from"));
    expect(resumed.map((event) => event.message)).toEqual([
      "going on from the checkpoint before step nap",
    ]);
    // The second attempt began at the step it was lost in: `submit` began once.
    const begun = events.filter((event) => event.type === "step_started");
    expect(begun.filter((event) => event.step?.id === "submit")).toHaveLength(1);
    expect(begun.filter((event) => event.step?.id === "nap")).toHaveLength(2);
  });

  it("still ends in reset naming the step when lost inside a step with effects", async () => {
    slowMs = 60_000;
    const doomed = await worker();
    const { id } = await client.start("skill_resumes", { base });
    await untilNap(id, "slow");
    // The request has reached the receiver: the step is under way.
    const deadline = Date.now() + 10_000;
    while (hits.get("/slow") !== 1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await doomed.stop("SIGKILL");

    await worker();
    const run = await client.ended(id);
    expect(run.state).toBe("reset");
    expect(run.data).toMatchObject({
      error: {
        step: "slow",
        message: expect.stringMatching(
          /^worker lost during step slow; not re-run because it may have had effects/,
        ),
      },
    });
    expect(hits.get("/slow")).toBe(1);
    expect(hits.get("/submit")).toBe(1);
  });

  it("goes on after a SIGTERM whose grace ran out, on the next worker, from where it was", async () => {
    const executor = await worker({ SHUTDOWN_GRACE_SECONDS: "1" });
    const { id } = await client.start("skill_resumes", { base });
    await untilNap(id);
    executor.signal("SIGTERM");
    expect(await executor.exited).toBe(0);
    expect(typesOf(await client.events(id))).toContain("run_released");

    await worker();
    const run = await client.ended(id);
    expect(run.state).toBe("finish");
    expect(run.data).toEqual({ submitted: true, done: true });
    expect(hits.get("/submit")).toBe(1);
  });
});
