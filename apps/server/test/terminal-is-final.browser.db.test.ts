import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewRunEvent } from "../src/db/repositories/run-events.js";
import {
  type Holder,
  RunExecutionRepository,
  type WorkerEnding,
} from "../src/db/repositories/run-execution.js";
import type { RunEvent, RunSession } from "../src/domain/api-types.js";
import {
  isTerminal,
  type StoredRunState,
  TERMINAL_STATES,
} from "../src/domain/run-state-machine.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call } from "./support/http.js";
import { RunClient } from "./support/runs.js";

/**
 * Terminal is final: once a run is finish, reset, cancel or timeout, its state, data and
 * end_time never change again; only video_url may go from null to a link. Races between a
 * cancel and the worker's writes resolve in the database, and what the first client was told
 * is what every later one sees.
 */

const WORKER = "worker-final";

/** A run whose last step follows a short wait: cancels are aimed at its end. */
const LAST_STEP_RACE = `
id: skill_last_step
name: Last step
steps:
  - set: { first: 1 }
  - id: nap
    wait: 200ms
  - set: { done: true }
`;

/** A browser run that saves data, then waits long enough to be cancelled. */
const BROWSER_NAP = `
id: skill_browser_nap
name: Browser nap
inputs:
  - { json_key: shop_url, data_type: string }
steps:
  - goto: "{{ inputs.shop_url }}"
  - extract: { selector: "#products .name", save_as: first }
  - id: nap
    wait: 30s
`;

let server: TestServer;
let alice: RunClient;

beforeAll(async () => {
  // No worker: the tests below play the worker's part through its repository.
  server = await startTestServer();
  await server.importSkillYaml("alice", LAST_STEP_RACE);
  alice = new RunClient(server.origin, await server.keyFor("alice"));
});

afterAll(async () => {
  await server?.close();
});

/** Every column of the run's row, as stored. */
async function stored(id: string) {
  return server.db.prisma.run.findUniqueOrThrow({ where: { id } });
}

/** What a client is told of a run that is final: the parts that must never move. */
function finalPart(run: RunSession) {
  return { state: run.state, data: run.data, end_time: run.end_time };
}

const event = (runId: string, type: NewRunEvent["type"]): NewRunEvent => ({
  runId,
  at: new Date(),
  type,
});

/**
 * Every write of the worker's repository, attempted as `holder` on its run. Keyed by method
 * name: the first test fails when the repository gains a method listed neither here nor in
 * READS, so that a new write is checked here too.
 */
const WRITES: Record<string, (holder: Holder) => Promise<unknown>> = {
  claim: async () => {
    await server.repos.runExecution.claim(WORKER, 30_000);
    // An agent's claim of the owner's client runs.
    await server.repos.runExecution.claim("agent:late", 30_000, { owner: "alice", name: "late" });
  },
  renewLeases: (holder) => server.repos.runExecution.renewLeases(WORKER, [holder.runId], 30_000),
  record: async (holder) => {
    const { runExecution } = server.repos;
    await runExecution.record(holder, {
      events: [event(holder.runId, "log")],
      data: { late: true },
    });
    await runExecution.record(holder, { events: [event(holder.runId, "log")] });
    // With a checkpoint, and the mark of a step with effects and its end.
    const checkpoint = {
      label: "late",
      seq: 99,
      topLevel: true,
      sealed: "sealed",
      bytes: 6,
      at: new Date(),
    };
    await runExecution.record(holder, { events: [], checkpoints: [checkpoint], effects: "late" });
    await runExecution.record(holder, { events: [], effects: null });
  },
  recordCancelled: (holder) =>
    server.repos.runExecution.recordCancelled(holder, event(holder.runId, "run_cancelled")),
  end: async (holder) => {
    for (const to of ["finish", "reset", "timeout"] satisfies WorkerEnding[]) {
      await server.repos.runExecution.end(holder, to, { late: to }, event(holder.runId, "log"));
    }
  },
  endOrRecordCancel: async (holder) => {
    for (const to of ["finish", "reset", "timeout"] satisfies WorkerEnding[]) {
      const late = event(holder.runId, "log");
      await server.repos.runExecution.endOrRecordCancel(holder, to, { late: to }, late, [late]);
    }
  },
  release: (holder) => server.repos.runExecution.release(holder, event(holder.runId, "log")),
  park: async (holder) => {
    for (const state of ["pause", "play"] as const) {
      await server.repos.runExecution.park(holder, {
        state,
        wakeAt: new Date(),
        activeMs: 1,
        resumeFrom: "late",
        event: event(holder.runId, "run_parked"),
      });
    }
  },
  expireParked: () => server.repos.runExecution.expireParked(),
  expireWaitingClientRuns: () => server.repos.runExecution.expireWaitingClientRuns(),
  forgetCheckpoints: (holder) => server.repos.runExecution.forgetCheckpoints(holder.runId),
  pause: async (holder) => {
    const { runExecution, runPauses } = server.repos;
    const pausedFor = { reason: "requested", step: "late", expires_at: "2099-01-01T00:00:00Z" };
    await runExecution.pause(
      holder,
      { ...pausedFor, reason: "requested" },
      event(holder.runId, "run_paused"),
    );
    // The API's side too: asking for a pause, and resuming.
    await runPauses.requestPause("alice", holder.runId);
    await runPauses.resume("alice", holder.runId, { given: false });
    await runPauses.resume("alice", holder.runId, { given: true, value: 1 });
  },
  unpause: (holder) =>
    server.repos.runExecution.unpause(holder, event(holder.runId, "run_resumed")),
  takeResume: (holder) =>
    server.repos.runExecution.takeResume(holder, event(holder.runId, "run_resumed")),
  recoverLost: async () => {
    // As a first loss (re-queued) and as a last one (reset).
    await server.repos.runExecution.recoverLost(1_000);
    await server.repos.runExecution.recoverLost(1);
  },
};
const READS = ["constructor", "statesOf", "calledSkills", "checkpoint"];

/**
 * A run of alice's, claimed by WORKER unless `claim` is false (the queue is otherwise empty:
 * every earlier run has ended).
 */
async function claimedRun({ claim = true } = {}): Promise<Holder> {
  const { id } = await server.repos.runs.create({
    owner: "alice",
    skill: { id: "skill_last_step", name: "Last step" },
    inputs: {},
  });
  if (claim) {
    const claimed = await server.repos.runExecution.claim(WORKER, 30_000);
    expect(claimed?.id).toBe(id);
  }
  return { runId: id, workerId: WORKER };
}

describe("a terminal run's row", () => {
  it("is tried below with every write of the worker's repository", () => {
    const methods = Object.getOwnPropertyNames(RunExecutionRepository.prototype);
    expect(methods.filter((name) => !READS.includes(name)).sort()).toEqual(
      Object.keys(WRITES).sort(),
    );
  });

  for (const state of TERMINAL_STATES) {
    it(`stays exactly as it is in ${state}, whatever its worker still writes`, async () => {
      const holder = await claimedRun();
      // As a run that ended while its worker went on: still naming it, its lease run out.
      await server.db.prisma.run.update({
        where: { id: holder.runId },
        data: {
          state,
          endTime: new Date(Date.now() - 60_000),
          data: '{"kept":true}',
          leaseExpiresAt: new Date(Date.now() - 1000),
        },
      });
      const before = await stored(holder.runId);
      const eventsBefore = await server.db.prisma.runEvent.count({
        where: { runId: holder.runId },
      });
      for (const [name, write] of Object.entries(WRITES)) {
        await write(holder);
        expect(await stored(holder.runId), name).toEqual(before);
      }
      expect(await server.repos.runs.cancel("alice", holder.runId)).toBe(state);
      expect(await stored(holder.runId)).toEqual(before);
      // Only where a cancelled run stopped may join its log: recordCancelled's note, and each
      // ending endOrRecordCancel was refused, its last event and the note.
      const added = await server.db.prisma.runEvent.findMany({
        where: { runId: holder.runId },
        orderBy: { id: "asc" },
        skip: eventsBefore,
        select: { type: true },
      });
      const stopped = ["run_cancelled", ...Array(3).fill(["log", "run_cancelled"]).flat()];
      expect(added.map((row) => row.type)).toEqual(state === "cancel" ? stopped : []);
    });
  }
});

describe("a cancel racing the worker's writes, in the database", () => {
  const runExecution = () => server.repos.runExecution;
  // The worker's write each race pits against a cancel.
  const racers: [string, (holder: Holder) => Promise<unknown>][] = [
    ["finish", (h) => runExecution().end(h, "finish", { won: 1 }, event(h.runId, "run_finished"))],
    ["reset", (h) => runExecution().end(h, "reset", { won: 1 }, event(h.runId, "run_failed"))],
    [
      "timeout",
      (h) => runExecution().end(h, "timeout", { won: 1 }, event(h.runId, "run_timed_out")),
    ],
    [
      "data",
      (h) =>
        runExecution().record(h, { events: [event(h.runId, "data_updated")], data: { won: 1 } }),
    ],
    ["release", (h) => runExecution().release(h, event(h.runId, "run_released"))],
    // Of a run still queued.
    ["claim", () => runExecution().claim(WORKER, 30_000)],
  ];

  it("ends where the cancel says, and nothing the worker writes after moves it", async () => {
    const outcomes = { cancelWon: 0, cancelLost: 0 };
    // Each racer 12 times: 6 with the cancel issued first, 6 after, with lags of 0 to 5 ms.
    for (let i = 0; i < 12 * racers.length; i += 1) {
      const [name, racer] = racers[i % racers.length] as (typeof racers)[number];
      const round = Math.floor(i / racers.length);
      const holder = await claimedRun({ claim: name !== "claim" });
      const cancel = () => server.repos.runs.cancel("alice", holder.runId);
      // Issued together, or one a few milliseconds after the other, in either order: the
      // worker's write is a transaction of several statements, the cancel a single one.
      const lag = Math.floor(round / 2);
      const later = <T>(write: () => Promise<T>) =>
        new Promise<T>((resolve, reject) => {
          setTimeout(() => write().then(resolve, reject), lag);
        });
      const told =
        round % 2 === 0
          ? (await Promise.all([cancel(), later(() => racer(holder))]))[0]
          : (await Promise.all([racer(holder), later(cancel)]))[1];
      const after = await stored(holder.runId);
      expect(isTerminal(after.state as StoredRunState), name).toBe(true);
      expect(after.state, name).toBe(told);
      expect(after.endTime, name).not.toBeNull();
      if (told === "cancel") outcomes.cancelWon += 1;
      else outcomes.cancelLost += 1;

      // The worker, not yet aware, goes on writing: every write is refused.
      for (const write of Object.values(WRITES)) await write(holder);
      expect(await stored(holder.runId), name).toEqual(after);
      const seen = await alice.get(holder.runId);
      expect(seen.state).toBe(told);
      expect(seen.end_time).toBe(after.endTime?.toISOString());
      expect(seen.data).toEqual(after.data === null ? null : JSON.parse(after.data));
    }
    // Both sides won some races: the cancel and the worker's endings really met.
    expect(outcomes.cancelWon).toBeGreaterThan(0);
    expect(outcomes.cancelLost).toBeGreaterThan(0);
  });
});

/** Asks for the run over and over until `stop`, keeping every answer. */
function watch(client: RunClient, runId: string): { stop(): Promise<RunSession[]> } {
  const seen: RunSession[] = [];
  let stopping = false;
  const loop = (async () => {
    while (!stopping) seen.push(await client.get(runId));
  })();
  return {
    async stop() {
      stopping = true;
      await loop;
      return seen;
    },
  };
}

/** Waits until the run has started its step `nap`. */
async function untilNap(client: RunClient, runId: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  const napping = (events: RunEvent[]) =>
    events.some((e) => e.type === "step_started" && e.step?.id === "nap");
  while (!napping(await client.events(runId))) {
    if (Date.now() > deadline) throw new Error("the run never reached its wait");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Waits until `own`'s worker is done with every run (ending, log and video written). */
async function workerIdle(own: TestServer): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((own.worker?.busy ?? 0) > 0) {
    if (Date.now() > deadline) throw new Error("the worker is still busy");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const ENDING_LAG_MS = 150;

describe("a cancel racing a run's last step, through the API and the worker", () => {
  it("leaves the first terminal state any client was told, with its data and end_time", async () => {
    const own = await startTestServer({
      worker: { concurrency: 1, pollMs: 20 },
      // The worker writes a run's ending ENDING_LAG_MS after its last step is done: a cancel
      // arriving in between meets an engine that has finished and an ending not yet written.
      workerExecution: (repository) => {
        const slowed = Object.create(repository) as RunExecutionRepository;
        slowed.end = async (...args) => {
          await new Promise((resolve) => setTimeout(resolve, ENDING_LAG_MS));
          return repository.end(...args);
        };
        return slowed;
      },
    });
    try {
      await own.importSkillYaml("alice", LAST_STEP_RACE);
      const client = new RunClient(own.origin, await own.keyFor("alice"));
      // How long the run takes from the start of its wait to its end, here and now: where the
      // first cancel is aimed.
      const probe = await client.start("skill_last_step");
      await untilNap(client, probe.id);
      const napping = Date.now();
      expect((await client.ended(probe.id)).state).toBe("finish");
      const span = Date.now() - napping;
      await workerIdle(own);

      // Each cancel is aimed a little later when the previous one came before the run's end, a
      // little earlier when it came after: they keep landing around the end, some of them in the
      // lag before the ending is written, however fast or slow the machine is just now.
      const step = Math.max(10, Math.round(ENDING_LAG_MS / 4));
      let aim = span;
      const told = new Map<string, number>();
      for (let i = 0; i < 24; i += 1) {
        const { id } = await client.start("skill_last_step");
        await untilNap(client, id);
        const watcher = watch(client, id);
        await new Promise((resolve) => setTimeout(resolve, aim));
        const state = await client.cancel(id);
        told.set(state, (told.get(state) ?? 0) + 1);
        aim = Math.max(0, aim + (state === "cancel" ? step : -step));
        await workerIdle(own);
        const seen = await watcher.stop();
        const last = await client.get(id);
        const final = seen.findIndex((run) => isTerminal(run.state ?? null));
        const answers = final < 0 ? [last] : [...seen.slice(final), last];
        // The cancel's answer is the terminal state clients saw first, and it stays, as do the
        // data and end_time seen with it.
        expect(answers[0]?.state).toBe(state);
        for (const answer of answers) {
          expect(finalPart(answer)).toEqual(finalPart(answers[0] as RunSession));
        }
        if (state === "finish") expect(last.data).toEqual({ first: 1, done: true });
      }
      // The cancels really met the run's end: some came before it, some after.
      expect(told.get("cancel")).toBeGreaterThan(0);
      expect(told.get("finish")).toBeGreaterThan(0);
    } finally {
      await own.close();
    }
  }, 180_000);
});

describe("a browser run cancelled mid-way, its video arriving after", () => {
  it("keeps the state, data and end_time it had when cancelled; only video_url appears", async () => {
    const own = await startTestServer({ worker: { concurrency: 1 } });
    try {
      await own.importSkillYaml("alice", BROWSER_NAP);
      const client = new RunClient(own.origin, await own.keyFor("alice"));
      const { id } = await client.start("skill_browser_nap", { shop_url: `${own.origin}/demo/` });
      await untilNap(client, id);
      expect(await client.cancel(id)).toBe("cancel");
      const cancelled = await client.get(id);
      expect(cancelled.state).toBe("cancel");
      expect(cancelled.data).toEqual({ first: "Basic plan" });
      expect(cancelled.end_time).not.toBeNull();

      const watcher = watch(client, id);
      const withVideo = await client.waitFor(id, (run) => typeof run.video_url === "string");
      await workerIdle(own);
      const seen = await watcher.stop();
      for (const later of [...seen, withVideo, await client.get(id)]) {
        expect(finalPart(later)).toEqual(finalPart(cancelled));
      }
      const listed = (await call(own.origin, "GET", "/v1/run/list", { key: client.key }))
        .body as RunSession[];
      expect(listed.map((run) => run.id)).toEqual([id]);
      expect(finalPart(listed[0] as RunSession)).toEqual(finalPart(cancelled));
      expect(listed[0]?.video_url).toMatch(/\/video\?expires=\d+&signature=/);
      // The browser was closed, and its video finished, only once the worker had stopped the
      // run: after the ending the cancel wrote.
      const recorded = (await client.events(id)).find((event) => event.type === "video_recorded");
      expect(Date.parse(recorded?.at ?? "")).toBeGreaterThanOrEqual(
        Date.parse(cancelled.end_time as string),
      );
    } finally {
      await own.close();
    }
  }, 90_000);
});
