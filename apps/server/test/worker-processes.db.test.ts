import { afterEach, describe, expect, it } from "vitest";
import type { RunEvent, RunSession } from "../src/domain/api-types.js";
import { isTerminal } from "../src/domain/run-state-machine.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call } from "./support/http.js";
import { RunClient, typesOf } from "./support/runs.js";
import { type SkillrunProcess, startWorkerProcess } from "./support/skillrun-process.js";
import { QUICK_SKILL, SLEEPY_SKILL } from "./support/skills.js";

/** Workers as separate `skillrun worker` processes sharing the server's SQLite file. */

const SLOW = `
id: skill_slow
name: Slow
steps:
  - log: starting
  - id: nap
    wait: 2s
  - set: { done: true }
`;

const servers: TestServer[] = [];
const workers: SkillrunProcess[] = [];

afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.stop("SIGKILL")));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function setUp(options: { inProcessWorker?: boolean } = {}) {
  const server = await startTestServer(
    options.inProcessWorker ? { worker: { concurrency: 4, pollMs: 50 } } : {},
  );
  servers.push(server);
  await server.importSkillYaml("alice", SLOW, SLEEPY_SKILL, QUICK_SKILL);
  return { server, client: new RunClient(server.origin, await server.keyFor("alice")) };
}

async function worker(server: TestServer, env: Record<string, string> = {}) {
  const started = await startWorkerProcess(server.databaseUrl, env);
  workers.push(started);
  return started;
}

/** Polls the run's log until `done` holds of it. */
async function eventsUntil(
  client: RunClient,
  runId: string,
  done: (events: RunEvent[]) => boolean,
) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const events = await client.events(runId);
    if (done(events)) return events;
    if (Date.now() > deadline) throw new Error(`events so far: ${typesOf(events).join(", ")}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const workerOf = (event: RunEvent) => (event.data as { worker?: string } | null)?.worker;

describe("a worker process killed mid-run", () => {
  it("has its run recovered by another worker process, which runs it to the end", async () => {
    const { server, client } = await setUp();
    const doomed = await worker(server, { WORKER_LEASE_SECONDS: "1" });
    const { id } = await client.start("skill_slow");
    await eventsUntil(client, id, (events) =>
      events.some((e) => e.type === "step_started" && e.step?.id === "nap"),
    );
    await doomed.stop("SIGKILL");

    const rescuer = await worker(server, { WORKER_LEASE_SECONDS: "1" });
    const run = await client.ended(id);
    expect(run.state).toBe("finish");
    expect(run.data).toEqual({ done: true });

    const events = await client.events(id);
    const claims = events.filter((e) => e.type === "run_claimed");
    expect(claims.map((e) => [workerOf(e), e.attempt])).toEqual([
      [doomed.id, 1],
      [rescuer.id, 2],
    ]);
    const lost = events.filter((e) => e.type === "worker_lost");
    expect(lost).toHaveLength(1);
    expect(lost[0]?.message).toContain(`worker ${doomed.id} was lost`);
    expect(lost[0]?.message).toContain("re-queued");
    // Lost, then claimed again, then run to its one ending.
    expect(typesOf(events).indexOf("worker_lost")).toBeLessThan(
      events.indexOf(claims[1] as RunEvent),
    );
    expect(typesOf(events).filter((t) => t === "run_finished")).toHaveLength(1);
  });
});

describe("cancel across processes", () => {
  it("stops a run executing in a worker process within a second", async () => {
    const { server, client } = await setUp();
    const executor = await worker(server);
    const { id } = await client.start("skill_sleepy");
    await eventsUntil(client, id, (events) => events.some((e) => e.type === "log"));
    const cancelledAt = Date.now();
    expect(await client.cancel(id)).toBe("cancel");
    const events = await eventsUntil(client, id, (e) => typesOf(e).includes("run_cancelled"));
    expect(Date.now() - cancelledAt).toBeLessThan(1000);
    expect(workerOf(events[0] as RunEvent)).toBe(executor.id);
    expect((await client.get(id)).state).toBe("cancel");
  });
});

describe("200 runs started at once", () => {
  it("all end exactly once, none lost and none claimed twice, across three workers", async () => {
    const { server, client } = await setUp({ inProcessWorker: true });
    // SQLite tells only the server's own worker of a new run; the others find runs by polling,
    // here often enough to take their share before the server's worker has run them all.
    await worker(server, { WORKER_CONCURRENCY: "4", WORKER_POLL_MS: "10" });
    await worker(server, { WORKER_CONCURRENCY: "4", WORKER_POLL_MS: "10" });

    const started = await Promise.all(
      Array.from({ length: 200 }, (_, n) => client.start("skill_quick", { n })),
    );
    const ids = new Set(started.map((run) => run.id));
    expect(ids.size).toBe(200);

    const deadline = Date.now() + 60_000;
    let runs: RunSession[] = [];
    for (;;) {
      const reply = await call(server.origin, "GET", "/v1/run/list?limit=1000", {
        key: client.key,
      });
      runs = reply.body as RunSession[];
      if (runs.every((run) => isTerminal(run.state ?? null))) break;
      if (Date.now() > deadline) throw new Error("not every run ended in time");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(new Set(runs.map((run) => run.id))).toEqual(ids);
    for (const run of runs) {
      expect(run.state).toBe("finish");
      expect(run.data).toEqual({ double: (run.inputs as { n: number }).n * 2 });
    }

    const claimers = new Set<string | undefined>();
    for (const run of runs) {
      const types = typesOf(await client.events(run.id));
      expect(
        types.filter((t) => t === "run_claimed"),
        run.id,
      ).toHaveLength(1);
      expect(
        types.filter((t) => t === "run_finished"),
        run.id,
      ).toHaveLength(1);
      expect(types.at(-1)).toBe("run_finished");
      claimers.add(workerOf((await client.events(run.id))[0] as RunEvent));
    }
    // The three workers really competed for the queue.
    expect(claimers.size).toBeGreaterThan(1);
  });
});
