import { afterEach, describe, expect, it } from "vitest";
import type { RunEvent } from "../src/domain/api-types.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import type { WorkerOptions } from "../src/worker/worker.js";
import { call } from "./support/http.js";
import { RunClient, typesOf } from "./support/runs.js";
import { type SkillrunProcess, startWorkerProcess } from "./support/skillrun-process.js";

/**
 * Parking: runs that wait for a person, a resume or a long `wait` give up their worker slot and
 * go on later, on any worker, from the checkpoint before the step they waited at.
 */

const APPROVAL = `
id: approval
name: Approve, then archive
steps:
  - set: { prepared: true }
  - id: approve
    ask: { prompt: "Archive the invoices?", schema: { type: boolean }, timeout: 1h }
  - set: { archived: "{{ steps.approve }}" }
`;

const SHORT_ASK = `
id: short_ask
name: Ask briefly
steps:
  - id: code
    ask: { prompt: "Code?", timeout: 2s }
  - set: { never: true }
`;

const NAP = `
id: nap
name: Nap, then note
steps:
  - set: { before: true }
  - id: nap
    wait: 2s
  - set: { after: true }
`;

const QUICK = `
id: quick
name: One step
steps:
  - set: { quick: true }
`;

let server: TestServer;
let client: RunClient;
const processes: SkillrunProcess[] = [];

afterEach(async () => {
  await Promise.all(processes.splice(0).map((started) => started.stop("SIGKILL")));
  await server?.close();
});

async function start(worker?: Partial<WorkerOptions>) {
  server = await startTestServer(worker === undefined ? {} : { worker });
  await server.importSkillYaml("alice", APPROVAL, SHORT_ASK, NAP, QUICK);
  client = new RunClient(server.origin, await server.keyFor("alice"));
}

/** Waits until the run's log holds an event of `type`. */
async function until(runId: string, type: RunEvent["type"], timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!typesOf(await client.events(runId)).includes(type)) {
    if (Date.now() > deadline) throw new Error(`run ${runId} has no ${type} event`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const answer = (runId: string, input: unknown) =>
  call(server.origin, "POST", `/v1/run/${runId}/resume`, { key: client.key, json: { input } });

describe("a run that waits for an answer", () => {
  it("is parked, leaving its slot to other runs, and goes on from where it was once answered", async () => {
    // Forty runs waiting for answers on a server with four slots.
    await start({ concurrency: 4, parkAfterMs: 100 });
    const waiting = await Promise.all(
      Array.from({ length: 40 }, async () => (await client.start("approval")).id),
    );
    for (const id of waiting) await until(id, "run_parked", 60_000);
    const parked = (await client.events(waiting[0] as string)).find(
      (event) => event.type === "run_parked",
    );
    expect(parked?.message).toMatch(/^waiting for an answer, parked: it holds no worker/);
    // Twice as many waiting runs as slots, and a new run still goes through.
    const quick = await client.ended((await client.start("quick")).id);
    expect(quick.state).toBe("finish");
    for (const id of waiting) expect((await client.get(id)).state).toBe("pause");

    for (const [index, id] of waiting.entries()) {
      const reply = await answer(id, index % 2 === 0);
      expect(reply.status, reply.text).toBe(200);
    }
    for (const [index, id] of waiting.entries()) {
      const run = await client.ended(id);
      expect(run.state).toBe("finish");
      expect(run.data).toEqual({ prepared: true, archived: index % 2 === 0 });
      const events = await client.events(id);
      // The step before the ask ran once: the run went on at the ask, answered.
      const started = events.filter((event) => event.type === "step_started");
      expect(started.filter((event) => event.step?.index === 0)).toHaveLength(1);
      const claims = events.filter((event) => event.type === "run_claimed");
      expect(claims.map((event) => event.data)).toEqual([
        { worker: expect.any(String) },
        { worker: expect.any(String), parked: true },
      ]);
    }
  });

  it("ends in timeout when nobody answers before its ask's timeout, parked or not", async () => {
    // Expired parked pauses are found as lost workers' runs are: every half lease.
    await start({ concurrency: 1, parkAfterMs: 100, leaseMs: 1000 });
    const { id } = await client.start("short_ask");
    await until(id, "run_parked");
    const run = await client.ended(id, 30_000);
    expect(run.state).toBe("timeout");
    expect(run.data).toMatchObject({ error: { step: "code" } });
    expect((run.data as { error: { message: string } }).error.message).toMatch(
      /^no answer to step code/,
    );
  });

  it("never wakes once cancelled while parked", async () => {
    await start({ concurrency: 1, parkAfterMs: 100 });
    const { id } = await client.start("approval");
    await until(id, "run_parked");
    const cancel = await call(server.origin, "POST", `/v1/run/${id}/cancel`, { key: client.key });
    expect(cancel.body).toBe("cancel");
    expect((await answer(id, true)).status).toBe(409);
    // Another run passes through the worker; the cancelled one is never claimed again.
    expect((await client.ended((await client.start("quick")).id)).state).toBe("finish");
    const run = await client.get(id);
    expect(run.state).toBe("cancel");
    const events = await client.events(id);
    expect(typesOf(events).filter((type) => type === "run_claimed")).toHaveLength(1);
    // With no worker to say where it stopped, the cancel says it.
    expect(events.at(-1)).toMatchObject({
      type: "run_cancelled",
      message: "stopped: the run was cancelled while parked before step approve",
    });
  });
});

describe("a long wait", () => {
  it("is parked at once and goes on when it ends, waiting only for what was left", async () => {
    await start({ concurrency: 1, parkAfterMs: 500 });
    const { id } = await client.start("nap");
    await until(id, "run_parked");
    // Meanwhile the slot serves another run.
    expect((await client.ended((await client.start("quick")).id)).state).toBe("finish");
    const run = await client.ended(id);
    expect(run.state).toBe("finish");
    expect(run.data).toEqual({ before: true, after: true });
    const parked = (await client.events(id)).find((event) => event.type === "run_parked");
    expect(parked?.data).toEqual({ wake_at: expect.any(String) });
  });
});

describe("a draining worker", () => {
  it("parks a run waiting for an answer at once; after the restart the answer lets it go on", async () => {
    await start();
    const worker = () =>
      startWorkerProcess(server.databaseUrl, {
        WORKER_CONCURRENCY: "1",
        SHUTDOWN_GRACE_SECONDS: "60",
        PARK_AFTER_SECONDS: "60",
        VIDEO_DIR: server.fileStore.dir,
      }).then((started) => {
        processes.push(started);
        return started;
      });
    const first = await worker();
    const { id } = await client.start("approval");
    await until(id, "run_paused");
    const stopping = Date.now();
    first.signal("SIGTERM");
    expect(await first.exited).toBe(0);
    // Not the 60 s grace: parked, the run was no reason to wait.
    expect(Date.now() - stopping).toBeLessThan(30_000);
    expect(typesOf(await client.events(id))).toContain("run_parked");
    expect((await client.get(id)).state).toBe("pause");

    await worker();
    expect((await answer(id, true)).status).toBe(200);
    const run = await client.ended(id);
    expect(run.state).toBe("finish");
    expect(run.data).toEqual({ prepared: true, archived: true });
  });
});
