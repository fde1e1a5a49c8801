import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewRunEvent } from "../src/db/repositories/run-events.js";
import type { Holder } from "../src/db/repositories/run-execution.js";
import type { Clock } from "../src/domain/clock.js";
import {
  canTransition,
  isTerminal,
  STORED_RUN_STATES,
  type StoredRunState,
} from "../src/domain/run-state-machine.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { skillRecord } from "./support/http.js";

/**
 * Every move of the run state machine (docs/api.md "Runs: states") through the operations that
 * make it, from every state: the legal ones happen (with end_time exactly when the run ends), the
 * others change nothing. The runs are put in each state directly in the database.
 */

const WORKER = "worker-a";
const OTHER_WORKER = "worker-b";
const SKILL = "skill_transitions";

let now = new Date("2026-11-22T10:00:00.000Z");
const clock: Clock = { now: () => now };
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ clock });
  await server.importSkills("alice", [skillRecord(SKILL, "Transitions")]);
});

afterAll(async () => {
  await server?.close();
});

const label = (state: StoredRunState) => (state === null ? "queued" : state);

interface Stored {
  state: StoredRunState;
  endTime: Date | null;
  workerId: string | null;
  attempts: number;
  data: string | null;
  effectsStep: string | null;
  environment: string | null;
  queuedUntil: Date | null;
}

/** A run of alice's put in `state`, held by WORKER with an expired lease while unfinished. */
async function runIn(state: StoredRunState, attempts = 1): Promise<string> {
  const { id } = await server.repos.runs.create({
    owner: "alice",
    skill: { id: SKILL, name: "Transitions" },
    inputs: {},
  });
  await server.db.prisma.run.update({
    where: { id },
    data: {
      state,
      workerId: state === null ? null : WORKER,
      leaseExpiresAt: state === null ? null : new Date(now.getTime() - 1000),
      attempts: state === null ? 0 : attempts,
      endTime: isTerminal(state) ? new Date(now.getTime() - 5000) : null,
      data: '{"kept":true}',
    },
  });
  return id;
}

async function stored(id: string): Promise<Stored> {
  const row = await server.db.prisma.run.findUniqueOrThrow({ where: { id } });
  return { ...row, state: row.state as StoredRunState };
}

const event = (runId: string, type: NewRunEvent["type"]): NewRunEvent => ({
  runId,
  at: now,
  type,
});

/** Nothing else may be queued when a test claims, so the claim can only take its own run. */
async function emptyQueue(): Promise<void> {
  await server.db.prisma.run.updateMany({
    where: { state: null },
    data: { state: "cancel", endTime: now },
  });
}

type Move = {
  name: string;
  to: StoredRunState;
  /** The sources the operation takes, when fewer than all legal ones. */
  onlyFrom?: StoredRunState[];
  /** Performs the move on `runId`; true when the operation says it happened. */
  perform(runId: string, holder: Holder): Promise<boolean>;
};

const moves: Move[] = [
  {
    name: "claim",
    to: "play",
    // A claim takes runs from the queue; resuming a paused run is not a claim.
    onlyFrom: [null],
    perform: async (runId) => {
      const claimed = await server.repos.runExecution.claim(OTHER_WORKER, 30_000);
      if (claimed !== null) expect(claimed.id).toBe(runId);
      return claimed !== null;
    },
  },
  {
    name: "cancel",
    to: "cancel",
    perform: async (runId) => {
      const before = await stored(runId);
      const after = await server.repos.runs.cancel("alice", runId);
      return after === "cancel" && before.state !== "cancel";
    },
  },
  ...(["finish", "reset", "timeout"] as const).map(
    (to): Move => ({
      name: `end in ${to}`,
      to,
      // Ending is a worker's (or an agent's): it holds the run.
      onlyFrom: ["play", "pause"],
      perform: (runId, holder) =>
        server.repos.runExecution.end(holder, to, { out: 1 }, event(runId, "run_finished")),
    }),
  ),
  {
    name: "time out waiting for an agent",
    to: "timeout",
    // Only a queued client run past its time limit (expire-client.ts).
    onlyFrom: [null],
    perform: async (runId) => {
      const { environment, queuedUntil } = await stored(runId);
      await server.db.prisma.run.update({
        where: { id: runId },
        data: { environment: "client", queuedUntil: new Date(now.getTime() - 60_000) },
      });
      const expired = await server.repos.runExecution.expireWaitingClientRuns();
      // Refused, the run is put back as it was, for the comparison with before.
      if (expired === 0) {
        await server.db.prisma.run.update({
          where: { id: runId },
          data: { environment, queuedUntil },
        });
      }
      return expired === 1;
    },
  },
  {
    name: "release to the queue",
    to: null,
    perform: (runId, holder) =>
      server.repos.runExecution.release(holder, event(runId, "run_released")),
  },
];

describe("each operation moves a run exactly where the state machine allows", () => {
  for (const move of moves) {
    for (const from of STORED_RUN_STATES) {
      const legal = canTransition(from, move.to) && (move.onlyFrom?.includes(from) ?? true);
      it(`${move.name}: ${label(from)} → ${label(move.to)} is ${legal ? "made" : "refused"}`, async () => {
        await emptyQueue();
        const id = await runIn(from);
        const before = await stored(id);
        now = new Date(now.getTime() + 1000);
        const happened = await move.perform(id, { runId: id, workerId: WORKER });
        const after = await stored(id);
        expect(happened).toBe(legal);
        if (!legal) {
          expect(after).toEqual(before);
          return;
        }
        expect(after.state).toBe(move.to);
        // end_time is set exactly when the run becomes terminal.
        expect(after.endTime).toEqual(isTerminal(move.to) ? now : null);
      });
    }
  }
});

describe("a worker's writes need the run to be its own", () => {
  it("another worker cannot end, release or record data on a run it does not hold", async () => {
    const id = await runIn("play");
    const before = await stored(id);
    const stranger = { runId: id, workerId: OTHER_WORKER };
    const { runExecution } = server.repos;
    expect(await runExecution.end(stranger, "finish", {}, event(id, "run_finished"))).toBe(false);
    expect(await runExecution.release(stranger, event(id, "run_released"))).toBe(false);
    await runExecution.record(stranger, { events: [], data: { stolen: true } });
    expect(await stored(id)).toEqual(before);
  });
});

describe("recovery of runs whose worker was lost", () => {
  it("re-queues a run found with an expired lease the first time", async () => {
    await emptyQueue();
    const id = await runIn("play", 1);
    await server.repos.runExecution.recoverLost(2);
    const after = await stored(id);
    expect(after).toMatchObject({ state: null, workerId: null, endTime: null, data: null });
    const events = await server.repos.runEvents.list("alice", id, { limit: 10 });
    expect(events?.events.map((e) => [e.type, e.data])).toEqual([
      ["worker_lost", { worker: WORKER, requeued: true }],
    ]);
  });

  it("ends it in reset, saying the worker was lost, when it was lost before", async () => {
    const id = await runIn("play", 2);
    await server.repos.runExecution.record(
      { runId: id, workerId: WORKER },
      {
        events: [
          {
            runId: id,
            at: now,
            type: "step_started",
            step: { index: 1, id: "fetch", kind: "http", label: "fetch" },
          },
        ],
      },
    );
    await server.repos.runExecution.recoverLost(2);
    const after = await stored(id);
    expect(after.state).toBe("reset");
    expect(after.endTime).toEqual(now);
    const data = JSON.parse(after.data ?? "null");
    expect(data).toMatchObject({ kept: true, error: { step: "fetch" } });
    expect(data.error.message).toMatch(
      new RegExp(`^worker ${WORKER} was lost: it stopped renewing its lease .*the run was reset$`),
    );
  });

  it("ends a run in reset at its first loss when a step with effects began, naming the step", async () => {
    const id = await runIn("play", 1);
    const holder = { runId: id, workerId: WORKER };
    expect(await server.repos.runExecution.record(holder, { events: [], effects: "pay" })).toBe(
      true,
    );
    await server.repos.runExecution.recoverLost(2);
    const after = await stored(id);
    expect(after).toMatchObject({ state: "reset", endTime: now, effectsStep: "pay" });
    const data = JSON.parse(after.data ?? "null");
    expect(data).toMatchObject({ kept: true, error: { step: "pay" } });
    expect(data.error.message).toMatch(
      /^worker lost during step pay; not re-run because it may have had effects \(worker .* was lost/,
    );
    const events = await server.repos.runEvents.list("alice", id, { limit: 10 });
    expect(events?.events.map((e) => [e.type, e.data])).toEqual([
      ["worker_lost", { worker: WORKER, requeued: false, effects_step: "pay" }],
    ]);
  });

  it("marks effects only for the worker holding the run, and a new claim starts unmarked", async () => {
    const id = await runIn("play", 1);
    const stranger = { runId: id, workerId: OTHER_WORKER };
    expect(await server.repos.runExecution.record(stranger, { events: [], effects: "pay" })).toBe(
      false,
    );
    expect((await stored(id)).effectsStep).toBeNull();
    await emptyQueue();
    const queued = await runIn(null);
    await server.db.prisma.run.update({ where: { id: queued }, data: { effectsStep: "stale" } });
    const claimed = await server.repos.runExecution.claim(WORKER, 30_000);
    expect(claimed?.id).toBe(queued);
    expect((await stored(queued)).effectsStep).toBeNull();
  });

  it("leaves alone runs whose lease holds, and runs that are not running", async () => {
    const holding = await runIn("play", 1);
    await server.db.prisma.run.update({
      where: { id: holding },
      data: { leaseExpiresAt: new Date(now.getTime() + 10_000) },
    });
    const others = await Promise.all(
      STORED_RUN_STATES.filter((s) => s !== "play" && s !== "pause").map((s) => runIn(s, 1)),
    );
    const before = await Promise.all([holding, ...others].map(stored));
    await server.repos.runExecution.recoverLost(2);
    expect(await Promise.all([holding, ...others].map(stored))).toEqual(before);
  });
});
