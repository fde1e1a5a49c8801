import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RunEvent, RunSession } from "../src/domain/api-types.js";
import {
  startTestServer,
  TEST_VIDEO_SECRET,
  type TestServer,
} from "../src/test-support/test-server.js";
import { RunClient, typesOf } from "./support/runs.js";
import {
  type SkillrunProcess,
  type StartOptions,
  startServerProcess,
  startWorkerProcess,
} from "./support/skillrun-process.js";
import { QUICK_SKILL, SLEEPY_SKILL } from "./support/skills.js";

/**
 * `skillrun serve` and `skillrun worker`, the built command, stopped with real signals: runs
 * under way are given SHUTDOWN_GRACE_SECONDS to finish, what is left goes back to the queue, a
 * second signal stops at once, and `serve` answers the requests in flight before it exits. The
 * test server beside them (no worker of its own) shares their database and is how the test
 * reads the runs once they have gone.
 */

const THREE_SECONDS = `
id: skill_three_seconds
name: Three seconds
steps:
  - log: starting
  - id: nap
    wait: 3s
  - set: { done: true }
`;

const FOUR_SECONDS = `
id: skill_four_seconds
name: Four seconds
steps:
  - log: starting
  - id: nap
    wait: 4s
  - set: { done: true }
`;

let server: TestServer;
let client: RunClient;
let videoDir: string;
const processes: SkillrunProcess[] = [];

beforeEach(async () => {
  server = await startTestServer();
  await server.importSkillYaml("alice", THREE_SECONDS, FOUR_SECONDS, SLEEPY_SKILL, QUICK_SKILL);
  client = new RunClient(server.origin, await server.keyFor("alice"));
  videoDir = mkdtempSync(join(tmpdir(), "skillrun-drain-"));
});

afterEach(async () => {
  await Promise.all(processes.splice(0).map((started) => started.stop("SIGKILL")));
  await server?.close();
  rmSync(videoDir, { recursive: true, force: true });
});

/** What every process here is started with: its log on stdout, where the test reads it. */
function envOf(env: Record<string, string>): Record<string, string> {
  return {
    LOG_LEVEL: "info",
    VIDEO_DIR: videoDir,
    VIDEO_SIGNING_SECRET: TEST_VIDEO_SECRET,
    ...env,
  };
}

async function worker(env: Record<string, string> = {}, options: StartOptions = {}) {
  const started = await startWorkerProcess(
    server.databaseUrl,
    envOf({ WORKER_CONCURRENCY: "2", ...env }),
    options,
  );
  processes.push(started);
  return started;
}

async function serve(env: Record<string, string> = {}) {
  const started = await startServerProcess(
    server.databaseUrl,
    envOf({ WORKER_CONCURRENCY: "2", WORKER_POLL_MS: "50", ...env }),
  );
  processes.push(started);
  return started;
}

/** Waits until the run has started its step `nap`. */
async function untilNap(runId: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  const napping = (events: RunEvent[]) =>
    events.some((event) => event.type === "step_started" && event.step?.id === "nap");
  while (!napping(await client.events(runId))) {
    if (Date.now() > deadline) throw new Error("the run never reached its wait");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const workerOf = (event: RunEvent) => (event.data as { worker?: string } | null)?.worker;

/** Who claimed the run, and as which attempt, in order. */
async function claimsOf(runId: string): Promise<[string | undefined, number | null][]> {
  return (await client.events(runId))
    .filter((event) => event.type === "run_claimed")
    .map((event) => [workerOf(event), event.attempt ?? null]);
}

/** The run ran once, to its end, and was never put back in the queue. */
async function expectFinishedOnce(runId: string, by: string): Promise<void> {
  const run = await client.get(runId);
  expect(run.state).toBe("finish");
  expect(run.data).toEqual({ done: true });
  const types = typesOf(await client.events(runId));
  expect(types).not.toContain("run_released");
  expect(types.at(-1)).toBe("run_finished");
  expect(await claimsOf(runId)).toEqual([[by, 1]]);
}

/** The run is back in the queue, released by `by`: the last thing its log says. */
async function expectReleased(runId: string, by: string): Promise<RunSession> {
  const run = await client.get(runId);
  expect(run.state).toBeNull();
  expect(run.data).toBeNull();
  expect(run.end_time).toBeNull();
  const events = await client.events(runId);
  expect(typesOf(events).at(-1)).toBe("run_released");
  expect(events.at(-1)?.message).toBe(`worker ${by} shut down; the run was put back in the queue`);
  return run;
}

/** Resolves once a new connection to `origin` is refused (the server no longer listens). */
function connectionRefused(origin: string): Promise<boolean> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"));
  });
}

describe("skillrun worker stopped with SIGTERM", () => {
  it("claims nothing more and lets its run under way finish, not run again", async () => {
    const executor = await worker();
    const { id } = await client.start("skill_three_seconds");
    await untilNap(id);
    executor.signal("SIGTERM");
    await executor.printed(/"msg":"draining 1 run for up to 30 s"/);
    // Queued while it drains: a worker with room that no longer claims leaves it there.
    const later = await client.start("skill_quick", { n: 1 });

    expect(await executor.exited).toBe(0);
    await expectFinishedOnce(id, executor.id);
    expect((await client.get(later.id)).state).toBeNull();
    expect(await client.events(later.id)).toEqual([]);
  });

  it("puts a run still under way when a short grace ends back in the queue, for another worker", async () => {
    const first = await worker({ SHUTDOWN_GRACE_SECONDS: "1" });
    const { id } = await client.start("skill_four_seconds");
    await untilNap(id);
    first.signal("SIGTERM");
    await first.printed(/"msg":"draining 1 run for up to 1 s"/);
    expect(await first.exited).toBe(0);
    await first.printed(/"msg":"released 1 run"/);
    await expectReleased(id, first.id);

    const second = await worker();
    const run = await client.ended(id);
    expect(run.state).toBe("finish");
    expect(run.data).toEqual({ done: true });
    // A release is not a lost worker: the second claim is still the first attempt.
    expect(await claimsOf(id)).toEqual([
      [first.id, 1],
      [second.id, 1],
    ]);
    const types = typesOf(await client.events(id));
    expect(types.filter((type) => type === "run_finished")).toHaveLength(1);
    expect(types).not.toContain("worker_lost");
  });

  it("stops at once on a second SIGTERM, putting its run back in the queue", async () => {
    const executor = await worker();
    const { id } = await client.start("skill_sleepy");
    await untilNap(id);
    executor.signal("SIGTERM");
    await executor.printed(/"msg":"draining 1 run for up to 30 s"/);
    const again = Date.now();
    executor.signal("SIGTERM");
    expect(await executor.exited).toBe(0);
    // Far less than the 30 s the first signal granted (and than the run's own 30 s wait).
    expect(Date.now() - again).toBeLessThan(10_000);
    await executor.printed(/"msg":"SIGTERM again: stopping at once"/);
    await executor.printed(/"msg":"released 1 run"/);
    await expectReleased(id, executor.id);
  });

  it("drains on Ctrl-C in a terminal (SIGINT to its whole process group) as on SIGTERM", async () => {
    const executor = await worker({}, { ownGroup: true });
    const { id } = await client.start("skill_three_seconds");
    await untilNap(id);
    executor.signal("SIGINT", { group: true });
    expect(await executor.exited).toBe(0);
    await executor.printed(/"msg":"draining 1 run for up to 30 s"/);
    await expectFinishedOnce(id, executor.id);
  });
});

describe("skillrun serve stopped with SIGTERM", () => {
  it("answers the request in flight and refuses new connections while its run under way finishes", async () => {
    const serving = await serve();
    const origin = serving.id;
    const { id } = await client.start("skill_three_seconds");
    await untilNap(id);
    const workerId = workerOf((await client.events(id))[0] as RunEvent) as string;

    // A request whose headers the server has read (it said "100 Continue") and whose body is
    // still to come: in flight when the signal arrives.
    const body = JSON.stringify({ skill_id: "skill_quick", inputs: { n: 21 } });
    const inFlight = request(`${origin}/v1/run/`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${client.key}`,
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(body)),
        expect: "100-continue",
      },
    });
    const answered = new Promise<{ status: number; connection: string; text: string }>(
      (resolve, reject) => {
        inFlight.once("response", (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            text += chunk;
          });
          res.once("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              connection: String(res.headers.connection),
              text,
            }),
          );
        });
        inFlight.once("error", reject);
      },
    );
    await new Promise<void>((resolve) => inFlight.once("continue", resolve));

    serving.signal("SIGTERM");
    await serving.printed(/"msg":"no longer accepting connections; answering 1 request in flight"/);
    expect(await connectionRefused(origin)).toBe(true);
    inFlight.end(body);
    const reply = await answered;
    expect(reply.status, reply.text).toBe(200);
    // Its connection is not kept for another request.
    expect(reply.connection).toBe("close");
    const accepted = JSON.parse(reply.text) as RunSession;
    expect(accepted).toMatchObject({ skill_id: "skill_quick", state: null });

    expect(await serving.exited).toBe(0);
    await serving.printed(/"msg":"draining 1 run for up to 30 s"/);
    await expectFinishedOnce(id, workerId);
    // Accepted while the server drained: queued, never started, for the next start or another
    // worker (a claim already under way as the signal came may take it and put it straight back).
    expect((await client.get(accepted.id)).state).toBeNull();
    expect([[], ["run_claimed", "run_released"]]).toContainEqual(
      typesOf(await client.events(accepted.id)),
    );
  });

  it("puts a run still under way when a short grace ends back in the queue; the restarted server finishes it", async () => {
    const first = await serve({ SHUTDOWN_GRACE_SECONDS: "1" });
    const { id } = await client.start("skill_four_seconds");
    await untilNap(id);
    const firstWorker = workerOf((await client.events(id))[0] as RunEvent) as string;
    first.signal("SIGTERM");
    expect(await first.exited).toBe(0);
    await first.printed(/"msg":"released 1 run"/);
    await expectReleased(id, firstWorker);

    await serve();
    const run = await client.ended(id);
    expect(run.state).toBe("finish");
    expect(run.data).toEqual({ done: true });
    const claims = await claimsOf(id);
    expect(claims).toHaveLength(2);
    expect(claims[0]).toEqual([firstWorker, 1]);
    expect(claims[1]?.[0]).not.toBe(firstWorker);
    expect(claims[1]?.[1]).toBe(1);
  });
});
