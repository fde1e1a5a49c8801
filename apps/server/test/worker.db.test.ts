import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunExecutionRepository } from "../src/db/repositories/run-execution.js";
import { systemClock } from "../src/domain/clock.js";
import { Metrics } from "../src/metrics/metrics.js";
import { RunSecrets } from "../src/secrets/run-secrets.js";
import { testSecretBox } from "../src/test-support/test-secrets.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { InProcessRunSignals } from "../src/worker/in-process-run-signals.js";
import { Worker } from "../src/worker/worker.js";
import { call } from "./support/http.js";
import { RunClient, typesOf } from "./support/runs.js";

/** The in-process worker: runs really run, end as the run state machine says, and log why. */

const GREET = `
id: skill_greet
name: Greet
inputs:
  - { json_key: name, data_type: string, required: false, default: world }
steps:
  - id: greet
    set: { greeting: "Hello, {{ inputs.name }}!" }
  - log: "{{ data.greeting }}"
`;

const SLEEPY = `
id: skill_sleepy
name: Sleepy
timeout: 1m
steps:
  - log: going to sleep
  - id: nap
    wait: 30s
  - set: { woke: true }
`;

/** Fetches from a loopback port nothing listens on. */
const broken = (port: number) => `
id: skill_broken
name: Broken
steps:
  - set: { before: 1 }
  - id: fetch
    http: { url: "http://127.0.0.1:${port}/nothing", timeout: 2s }
  - set: { after: 1 }
`;

const IMPATIENT = `
id: skill_impatient
name: Impatient
timeout: 300ms
steps:
  - id: nap
    wait: 10s
`;

// Called by skill_report through a chain, to show the worker hands a run every skill it reaches.
const ADD = `
id: skill_add
name: Add
inputs:
  - { json_key: a, data_type: number }
  - { json_key: b, data_type: number }
steps:
  - set: { sum: "{{ inputs.a + inputs.b }}" }
output:
  sum: "{{ data.sum }}"
`;

const DOUBLE = `
id: skill_double
name: Double
inputs:
  - { json_key: n, data_type: number }
steps:
  - id: add
    call: { skill: skill_add, inputs: { a: "{{ inputs.n }}", b: "{{ inputs.n }}" } }
  - if: "{{ steps.add.sum > 100 }}"
    fail: "{{ steps.add.sum }} is too large"
output:
  doubled: "{{ steps.add.sum }}"
`;

const REPORT = `
id: skill_report
name: Report
inputs:
  - { json_key: numbers, data_type: array }
steps:
  - let: { doubled: [] }
  - id: each
    for_each:
      items: "{{ inputs.numbers }}"
      as: n
      steps:
        - id: double
          call: { skill: skill_double, inputs: { n: "{{ vars.n }}" } }
        - let: { doubled: "{{ $append(vars.doubled, steps.double.doubled) }}" }
output:
  doubled: "{{ vars.doubled }}"
  total: "{{ $sum(vars.doubled) }}"
`;

let server: TestServer;
let alice: RunClient;
let bob: RunClient;
let closedPort: number;

beforeAll(async () => {
  server = await startTestServer({ worker: { concurrency: 4 } });
  closedPort = await unusedPort();
  await server.importSkillYaml("alice", GREET, SLEEPY, broken(closedPort), IMPATIENT);
  await server.importSkillYaml("alice", ADD, DOUBLE, REPORT);
  alice = new RunClient(server.origin, await server.keyFor("alice"));
  bob = new RunClient(server.origin, await server.keyFor("bob"));
});

afterAll(async () => {
  await server?.close();
});

describe("a run that succeeds", () => {
  it("goes from queued through play to finish, with its outputs in data and end_time set", async () => {
    const started = await alice.start("skill_greet", { name: "Ada" });
    expect(started.state).toBeNull();
    expect(started.end_time).toBeNull();
    const run = await alice.ended(started.id);
    expect(run.state).toBe("finish");
    expect(run.data).toEqual({ greeting: "Hello, Ada!" });
    expect(Date.parse(run.end_time as string)).toBeGreaterThanOrEqual(Date.parse(run.start_time));
  });

  it("leaves a step log of every step, in order, with durations", async () => {
    const { id } = await alice.start("skill_greet");
    await alice.ended(id);
    const events = await alice.events(id);
    expect(typesOf(events)).toEqual([
      "run_claimed",
      "run_started",
      "step_started",
      "data_updated",
      "step_finished",
      "step_started",
      "log",
      "step_finished",
      "run_finished",
    ]);
    expect(events[0]).toMatchObject({ attempt: 1, data: { worker: server.worker?.id } });
    expect(events[3]).toMatchObject({
      step: { index: 0, id: "greet", kind: "set", label: "greet" },
      data: { greeting: "Hello, world!" },
    });
    expect(events[6]).toMatchObject({
      step: { index: 1, id: null, kind: "log", label: "step 2 (log)" },
      level: "info",
      message: "Hello, world!",
    });
    for (const event of events.filter((e) => e.type === "step_finished")) {
      expect(event.duration_ms).toBeGreaterThanOrEqual(0);
    }
    const ids = events.map((event) => event.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it("cannot be cancelled once finished: cancel answers finish and changes nothing", async () => {
    const { id } = await alice.start("skill_greet");
    const ended = await alice.ended(id);
    expect(await alice.cancel(id)).toBe("finish");
    expect(await alice.get(id)).toEqual(ended);
  });
});

describe("a run whose skill calls others", () => {
  it("runs the skills it reaches through calls, its data being its output", async () => {
    const { id } = await alice.start("skill_report", { numbers: [1, 2, 3] });
    const run = await alice.ended(id);
    expect(run.state).toBe("finish");
    expect(run.data).toEqual({ doubled: [2, 4, 6], total: 12 });
    const labels = (await alice.events(id)).flatMap((e) =>
      e.type === "step_started" ? [e.step?.label] : [],
    );
    expect(labels).toContain("each #3 › double › add › step 1 (set)");
  });

  it("fails naming the called skill's step, with what output could evaluate", async () => {
    const { id } = await alice.start("skill_report", { numbers: [1, 70] });
    const run = await alice.ended(id);
    expect(run.state).toBe("reset");
    expect(run.data).toEqual({
      doubled: [2],
      total: 2,
      error: { step: "each #2 › double › step 2 (fail)", message: "140 is too large" },
    });
  });
});

describe("a run that fails", () => {
  it("ends in reset with data.error naming the step and the cause, keeping earlier data", async () => {
    const { id } = await alice.start("skill_broken");
    const run = await alice.ended(id);
    expect(run.state).toBe("reset");
    expect(run.data).toMatchObject({ before: 1, error: { step: "fetch" } });
    expect(run.data).not.toHaveProperty("after");
    const error = (run.data as { error: { message: string } }).error;
    expect(error.message).toContain(`GET http://127.0.0.1:${closedPort}/nothing`);
    expect(error.message).toMatch(/ECONNREFUSED|refused/i);

    const events = await alice.events(id);
    expect(typesOf(events).slice(-2)).toEqual(["step_failed", "run_failed"]);
    expect(events.at(-1)).toMatchObject({
      message: `fetch: ${error.message}`,
      step: { index: 1, id: "fetch", kind: "http", label: "fetch" },
      data: { error },
    });
    expect(await alice.cancel(id)).toBe("reset");
  });
});

describe("a run whose stored skill cannot be read", () => {
  it("ends in reset naming its skill, and the runs queued after it go on", async () => {
    await server.importSkillYaml("alice", GREET.replace("skill_greet", "skill_garbled"));
    // Not JSON: only a damaged database holds such a definition.
    await server.db.prisma.skill.updateMany({
      where: { owner: "alice", id: "skill_garbled" },
      data: { definition: "{" },
    });
    const garbled = await alice.start("skill_garbled");
    const after = await alice.start("skill_greet");
    const run = await alice.ended(garbled.id);
    expect(run.state).toBe("reset");
    expect(run.data).toMatchObject({
      error: {
        step: null,
        message: "skill skill_garbled has no usable stored definition; import it again",
      },
    });
    expect((await alice.ended(after.id)).state).toBe("finish");
  });
});

describe("the time limit", () => {
  it("ends a run past its skill's timeout in timeout, saying which step was under way", async () => {
    const { id } = await alice.start("skill_impatient");
    const run = await alice.ended(id, 5000);
    expect(run.state).toBe("timeout");
    expect(run.data).toEqual({
      error: { step: "nap", message: "the run exceeded its time limit of 300ms" },
    });
    const took = Date.parse(run.end_time as string) - Date.parse(run.start_time);
    expect(took).toBeGreaterThanOrEqual(300);
    expect(took).toBeLessThan(3000);
    expect(typesOf(await alice.events(id)).at(-1)).toBe("run_timed_out");
    expect(await alice.cancel(id)).toBe("timeout");
  });
});

describe("cancel", () => {
  it("stops a running run within a second, and the run never changes again", async () => {
    const { id } = await alice.start("skill_sleepy");
    await alice.waitFor(id, (run) => run.state === "play");
    // Into the 30 s wait.
    await waitForEvent(id, (types) => types.includes("log"));
    const cancelledAt = Date.now();
    expect(await alice.cancel(id)).toBe("cancel");
    const events = await waitForEvent(id, (types) => types.includes("run_cancelled"));
    expect(Date.now() - cancelledAt).toBeLessThan(1000);
    expect(events.at(-1)).toMatchObject({
      type: "run_cancelled",
      step: { id: "nap", kind: "wait" },
    });
    const run = await alice.get(id);
    expect(run.state).toBe("cancel");
    expect(run.end_time).not.toBeNull();
    expect(run.data).toBeNull();
    expect(await alice.cancel(id)).toBe("cancel");
  });

  it("ends a queued run at once; no worker ever claims it", async () => {
    // A server whose one worker slot is taken, so the second run waits in the queue.
    const busy = await startTestServer({ worker: { concurrency: 1 } });
    try {
      await busy.importSkillYaml("alice", SLEEPY);
      const client = new RunClient(busy.origin, await busy.keyFor("alice"));
      const first = await client.start("skill_sleepy");
      await client.waitFor(first.id, (run) => run.state === "play");
      const queued = await client.start("skill_sleepy");
      expect(await client.cancel(queued.id)).toBe("cancel");
      expect(await client.cancel(first.id)).toBe("cancel");
      await client.waitFor(first.id, () => busy.worker?.busy === 0);
      // Runs are claimed oldest first: once the freed slot has taken a newer run, it has passed
      // over the cancelled one, which stays as it was.
      const later = await client.start("skill_sleepy");
      await client.waitFor(later.id, (run) => run.state === "play");
      expect(await client.cancel(later.id)).toBe("cancel");
      const run = await client.get(queued.id);
      expect(run.state).toBe("cancel");
      expect(run.end_time).not.toBeNull();
      expect(await client.events(queued.id)).toEqual([]);
    } finally {
      await busy.close();
    }
  });
});

describe("worker shutdown", () => {
  it("puts the runs under way back in the queue, where another worker takes them", async () => {
    const own = await startTestServer({ worker: { concurrency: 2 } });
    try {
      await own.importSkillYaml("alice", SLEEPY);
      const client = new RunClient(own.origin, await own.keyFor("alice"));
      const { id } = await client.start("skill_sleepy");
      await client.waitFor(id, (run) => run.state === "play");
      await own.worker?.stop();

      const released = await client.get(id);
      expect(released.state).toBeNull();
      expect(released.data).toBeNull();
      expect(typesOf(await client.events(id)).at(-1)).toBe("run_released");

      const next = new Worker({
        execution: own.repos.runExecution,
        logger: pino({ level: "silent" }),
        metrics: new Metrics(),
        clock: systemClock,
        signals: new InProcessRunSignals(),
        fileStore: own.fileStore,
        chromium: {},
        browser: { user: "nobody", memoryLimitBytes: 1024 * 1024 * 1024, warm: false },
        network: () => ({}),
        secrets: new RunSecrets(own.repos.secrets, testSecretBox()),
        profiles: own.repos.profiles,
        files: { runFiles: own.repos.runFiles, uploads: own.repos.uploads, maxBytes: 1024 },
        liveViews: own.repos.liveViews,
      });
      next.start();
      try {
        await client.waitFor(id, (run) => run.state === "play");
        const claims = (await client.events(id)).filter((e) => e.type === "run_claimed");
        // A clean release does not count as an attempt.
        expect(claims.map((e) => [e.attempt, (e.data as { worker: string }).worker])).toEqual([
          [1, own.worker?.id],
          [1, next.id],
        ]);
        expect(await client.cancel(id)).toBe("cancel");
      } finally {
        await next.stop();
      }
    } finally {
      await own.close();
    }
  });
});

describe("worker shutdown while a claim is under way", () => {
  it("puts back, unstarted, a run the claim took as the worker began to stop", async () => {
    let claiming: () => void = () => {};
    const claimHeld = new Promise<void>((resolve) => {
      claiming = resolve;
    });
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let first = true;
    const own = await startTestServer({
      worker: { concurrency: 1, pollMs: 50 },
      // The worker's first claim waits until the test lets it go: the run is queued, and the
      // worker told to stop, while it is under way.
      workerExecution: (repository) => {
        const held = Object.create(repository) as RunExecutionRepository;
        held.claim = async (...args) => {
          if (first) {
            first = false;
            claiming();
            await released;
          }
          return repository.claim(...args);
        };
        return held;
      },
    });
    try {
      await own.importSkillYaml("alice", SLEEPY);
      const client = new RunClient(own.origin, await own.keyFor("alice"));
      await claimHeld;
      const { id } = await client.start("skill_sleepy");
      const stopped = own.worker?.stop();
      release();
      await stopped;

      expect((await client.get(id)).state).toBeNull();
      const events = await client.events(id);
      expect(typesOf(events)).toEqual(["run_claimed", "run_released"]);
      expect(events[1]?.message).toBe(
        "the worker began to shut down as it claimed the run; the run was put back in the queue",
      );
    } finally {
      await own.close();
    }
  });
});

describe("GET /run/{id}/events", () => {
  it("pages through the log with Link: rel=next, each event once, in order", async () => {
    const { id } = await alice.start("skill_greet");
    await alice.ended(id);
    const all = await alice.events(id);
    const paged = await alice.events(id, 2);
    expect(paged).toEqual(all);
  });

  it("is owner-scoped: another owner's run is not found", async () => {
    const { id } = await alice.start("skill_greet");
    const reply = await call(server.origin, "GET", `/v1/run/${id}/events`, { key: bob.key });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ detail: "Run not found" });
  });
});

/** A loopback port that was free a moment ago: connecting to it is refused. */
async function unusedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Polls the run's log until `done` holds of its event types; returns the events. */
async function waitForEvent(runId: string, done: (types: string[]) => boolean) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const events = await alice.events(runId);
    if (done(typesOf(events))) return events;
    if (Date.now() > deadline) throw new Error(`events: ${typesOf(events).join(", ")}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
