import { afterEach, describe, expect, it } from "vitest";
import type { Clock } from "../../domain/clock.js";
import type { Repositories } from "../../repositories.js";
import {
  openTestRepositories,
  type TestRepositories,
} from "../../test-support/test-repositories.js";
import type { RunProfileChoice } from "./runs.js";

// On TEST_FLAVOUR's database: runs that save one browser profile hold a worker one at a time,
// decided by the claim's statement (db/runs/sql/claim.ts, `held_profile`), and a queued one says
// so (waiting-for.ts); runs that only read a profile are never held back by it.

let opened: TestRepositories | undefined;
let repos: Repositories;
let now: Date;
const clock: Clock = { now: () => now };

async function open(): Promise<void> {
  now = new Date("2026-12-02T10:00:00.000Z");
  opened = await openTestRepositories(clock);
  repos = opened.repos;
  for (const owner of ["alice", "bob"]) {
    await repos.skills.importAll(owner, [
      {
        id: "skill_p",
        name: "P",
        description: null,
        inputs: [],
        definition: {},
        definitionHash: "p",
      },
    ]);
  }
}
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

/** Queues a run of `owner`'s with `profile`, a second after the last one; returns its id. */
async function queue(owner: string, profile: RunProfileChoice | null): Promise<string> {
  now = new Date(now.getTime() + 1000);
  const run = await repos.runs.create({
    owner,
    skill: { id: "skill_p", name: "P" },
    inputs: {},
    profile,
  });
  return run.id;
}

const saves = (name: string): RunProfileChoice => ({ name, save: "on_success" });
const reads = (name: string): RunProfileChoice => ({ name, save: null });

async function claimed(): Promise<string | null> {
  return (await repos.runExecution.claim("worker-1", 30_000))?.id ?? null;
}

async function waitingFor(owner: string, id: string) {
  return (await repos.runs.get(owner, id))?.waiting_for;
}

async function finish(id: string): Promise<void> {
  const holder = { runId: id, workerId: "worker-1" };
  const at = clock.now();
  expect(
    await repos.runExecution.end(holder, "finish", {}, { runId: id, at, type: "run_finished" }),
  ).toBe(true);
}

describe("runs that save a browser profile", () => {
  it("hold a worker one at a time; a queued one waits for the profile, and goes once it is free", async () => {
    await open();
    const first = await queue("alice", saves("acme-ann"));
    const second = await queue("alice", saves("acme-ann"));
    expect(await claimed()).toBe(first);
    expect(await waitingFor("alice", second)).toBe("profile");
    // Nothing else is queued: the claim takes none rather than the second saver.
    expect(await claimed()).toBeNull();
    await finish(first);
    expect(await waitingFor("alice", second)).toBe("slot");
    expect(await claimed()).toBe(second);
  });

  it("hold back only savers of the same profile of the same owner; readers never wait", async () => {
    await open();
    const saving = await queue("alice", saves("acme-ann"));
    const held = await queue("alice", saves("acme-ann"));
    const reader = await queue("alice", reads("acme-ann"));
    const other = await queue("alice", saves("acme-bob"));
    const bobs = await queue("bob", saves("acme-ann"));
    const plain = await queue("alice", null);
    expect(await claimed()).toBe(saving);
    const next = new Set([await claimed(), await claimed(), await claimed(), await claimed()]);
    expect(next).toEqual(new Set([reader, other, bobs, plain]));
    expect(await waitingFor("alice", held)).toBe("profile");
    expect(await claimed()).toBeNull();
  });

  it("says so in the answer to the POST that queues one while another saves", async () => {
    await open();
    await queue("alice", saves("acme-ann"));
    await claimed();
    now = new Date(now.getTime() + 1000);
    const answer = await repos.runs.create({
      owner: "alice",
      skill: { id: "skill_p", name: "P" },
      inputs: {},
      profile: saves("acme-ann"),
    });
    expect(answer.waiting_for).toBe("profile");
    const reader = await repos.runs.create({
      owner: "alice",
      skill: { id: "skill_p", name: "P" },
      inputs: {},
      profile: reads("acme-ann"),
    });
    expect(reader.waiting_for).toBe("slot");
  });

  it("count a parked saver as saving: it saves when it ends", async () => {
    await open();
    const parked = await queue("alice", saves("acme-ann"));
    const waiting = await queue("alice", saves("acme-ann"));
    expect(await claimed()).toBe(parked);
    const holder = { runId: parked, workerId: "worker-1" };
    const at = clock.now();
    const parking = {
      state: "play" as const,
      wakeAt: new Date(at.getTime() + 3_600_000),
      activeMs: 10,
      resumeFrom: "nap",
      event: { runId: parked, at, type: "log" as const, level: "info" as const, message: "parked" },
    };
    expect(await repos.runExecution.park(holder, parking)).toBe(true);
    expect(await claimed()).toBeNull();
    expect(await waitingFor("alice", waiting)).toBe("profile");
  });
});
