import { afterEach, describe, expect, it } from "vitest";
import type { Clock } from "../../domain/clock.js";
import { NO_QUEUE_LIMITS, type QueueLimits } from "../../domain/queue-limits.js";
import type { Repositories } from "../../repositories.js";
import {
  openTestRepositories,
  type TestRepositories,
} from "../../test-support/test-repositories.js";

// On TEST_FLAVOUR's database: the fair queue's order and limits are decided by the claim's
// statements (db/runs/sql/claim.ts) and the counts a read adds (waiting-for.ts).

let opened: TestRepositories | undefined;
let repos: Repositories;
let now: Date;
const clock: Clock = { now: () => now };

async function open(limits: QueueLimits = NO_QUEUE_LIMITS): Promise<void> {
  now = new Date("2026-11-29T10:00:00.000Z");
  opened = await openTestRepositories(clock, limits);
  repos = opened.repos;
  for (const owner of ["alice", "bob", "carol"]) {
    await repos.skills.importAll(owner, [
      skill("skill_a", {}),
      skill("skill_one", { concurrency: 1 }),
      skill("skill_site", { concurrency: 1, concurrency_key: "{{ inputs.site }}" }),
    ]);
  }
}
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

function skill(id: string, definition: Record<string, unknown>) {
  return { id, name: id, description: null, inputs: [], definition, definitionHash: id };
}

/** Queues a run a second after the last one, as POST /run/ would; returns its id. */
async function queue(owner: string, skillId = "skill_a", site?: string): Promise<string> {
  now = new Date(now.getTime() + 1000);
  const limit = skillId === "skill_a" ? null : 1;
  const run = await repos.runs.create({
    owner,
    skill: { id: skillId, name: skillId },
    inputs: site === undefined ? {} : { site },
    concurrency: limit === null ? null : { limit, key: site ?? null },
  });
  return run.id;
}

async function queueMany(owner: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(await queue(owner));
  return ids;
}

/** The owner of the run the next claim takes; null when it takes none. */
async function nextClaimOwner(): Promise<string | null> {
  return (await repos.runExecution.claim("worker-1", 30_000))?.owner ?? null;
}

async function waitingFor(owner: string, id: string) {
  return (await repos.runs.get(owner, id))?.waiting_for;
}

describe("the fair queue", () => {
  it("claims another owner's run next although one owner has 20 older runs queued", async () => {
    await open();
    const alices = await queueMany("alice", 20);
    expect((await repos.runExecution.claim("worker-1", 30_000))?.id).toBe(alices[0]);
    const bobs = await queue("bob");
    expect((await repos.runExecution.claim("worker-1", 30_000))?.id).toBe(bobs);
    // Bob has nothing left: Alice's runs go on, oldest first.
    expect((await repos.runExecution.claim("worker-1", 30_000))?.id).toBe(alices[1]);
  });

  it("takes turns between owners, each owner's runs oldest first", async () => {
    await open();
    await queueMany("carol", 3);
    await queueMany("alice", 3);
    await queueMany("bob", 3);
    const order: (string | null)[] = [];
    for (let i = 0; i < 10; i++) order.push(await nextClaimOwner());
    // Never served, all three tie first (by name); after that, whoever was served longest ago.
    expect(order).toEqual([
      ...["alice", "bob", "carol"],
      ...["alice", "bob", "carol"],
      ...["alice", "bob", "carol"],
      null,
    ]);
  });

  it("serves a new owner before owners that were served already", async () => {
    await open();
    await queueMany("alice", 3);
    await queueMany("bob", 3);
    expect(await nextClaimOwner()).toBe("alice");
    expect(await nextClaimOwner()).toBe("bob");
    await queue("carol");
    expect(await nextClaimOwner()).toBe("carol");
  });
});

describe("OWNER_MAX_RUNNING", () => {
  it("keeps an owner's runs queued past the limit while other owners' start", async () => {
    await open({ ownerMaxRunning: 2, ownerMaxQueued: null });
    const alices = await queueMany("alice", 5);
    const bob = await queue("bob");
    const claimed: (string | null)[] = [];
    for (let i = 0; i < 4; i++) claimed.push(await nextClaimOwner());
    expect(claimed).toEqual(["alice", "bob", "alice", null]);
    expect(await waitingFor("alice", alices[2] as string)).toBe("owner_limit");
    expect(await waitingFor("bob", bob)).toBeNull();
    // A run that ends makes room for the next.
    await repos.runs.cancel("alice", alices[0] as string);
    expect(await waitingFor("alice", alices[2] as string)).toBe("slot");
    expect((await repos.runExecution.claim("worker-1", 30_000))?.id).toBe(alices[2]);
    expect(await nextClaimOwner()).toBeNull();
  });

  it("is never exceeded by claims made at the same time", async () => {
    await open({ ownerMaxRunning: 2, ownerMaxQueued: null });
    await queueMany("alice", 8);
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, i) => repos.runExecution.claim(`worker-${i}`, 30_000)),
    );
    expect(claims.filter((claim) => claim !== null)).toHaveLength(2);
  });
});

describe("a skill's concurrency", () => {
  it("holds runs of a skill at its limit without holding the owner's other runs", async () => {
    await open();
    const ones = [await queue("alice", "skill_one"), await queue("alice", "skill_one")];
    const other = await queue("alice");
    expect(await waitingFor("alice", ones[1] as string)).toBe("slot");
    expect((await repos.runExecution.claim("worker-1", 30_000))?.id).toBe(ones[0]);
    expect(await waitingFor("alice", ones[1] as string)).toBe("skill_limit");
    expect((await repos.runExecution.claim("worker-1", 30_000))?.id).toBe(other);
    expect(await nextClaimOwner()).toBeNull();
    // Another owner's runs of a skill of the same id are not counted.
    await queue("bob", "skill_one");
    expect(await nextClaimOwner()).toBe("bob");
  });

  it("passes over an owner's backlog of held-back runs to its next run that may start", async () => {
    await open();
    const held = [];
    for (let i = 0; i < 30; i++) held.push(await queue("alice", "skill_one"));
    const free = await queue("alice");
    expect((await repos.runExecution.claim("worker-1", 30_000))?.id).toBe(held[0]);
    expect((await repos.runExecution.claim("worker-1", 30_000))?.id).toBe(free);
    expect(await nextClaimOwner()).toBeNull();
    // The run holding the skill ends: the oldest of the backlog is next.
    await repos.runs.cancel("alice", held[0] as string);
    expect((await repos.runExecution.claim("worker-1", 30_000))?.id).toBe(held[1]);
  });

  it("counts a key across the owner's skills, each run held to its own skill's limit", async () => {
    await open();
    await repos.skills.importAll("alice", [
      skill("skill_site_two", { concurrency: 2, concurrency_key: "{{ inputs.site }}" }),
    ]);
    const two = () =>
      repos.runs.create({
        owner: "alice",
        skill: { id: "skill_site_two", name: "two" },
        inputs: { site: "x.example" },
        concurrency: { limit: 2, key: "x.example" },
      });
    const first = await two();
    const one = await queue("alice", "skill_site", "x.example");
    const second = await two();
    expect((await repos.runExecution.claim("worker-1", 30_000))?.id).toBe(first.id);
    // One run of the key holds a worker: skill_site's limit of 1 is reached, skill_site_two's
    // 2 is not, though no run of skill_site holds one.
    expect((await repos.runExecution.claim("worker-1", 30_000))?.id).toBe(second.id);
    expect(await nextClaimOwner()).toBeNull();
    expect(await waitingFor("alice", one)).toBe("concurrency_key");
  });

  it("counts per concurrency key when the skill has one", async () => {
    await open();
    const x1 = await queue("alice", "skill_site", "x.example");
    const x2 = await queue("alice", "skill_site", "x.example");
    const y1 = await queue("alice", "skill_site", "y.example");
    expect((await repos.runExecution.claim("worker-1", 30_000))?.id).toBe(x1);
    expect((await repos.runExecution.claim("worker-1", 30_000))?.id).toBe(y1);
    expect(await nextClaimOwner()).toBeNull();
    expect(await waitingFor("alice", x2)).toBe("concurrency_key");
    const page = await repos.runs.list("alice", { limit: 10 });
    expect(page.runs.map((run) => [run.id, run.waiting_for])).toEqual([
      [y1, null],
      [x2, "concurrency_key"],
      [x1, null],
    ]);
  });

  it("is never exceeded by claims made at the same time", async () => {
    await open();
    for (let i = 0; i < 6; i++) await queue("alice", "skill_site", "x.example");
    for (let i = 0; i < 6; i++) await queue("alice", "skill_one");
    const claims = await Promise.all(
      Array.from({ length: 12 }, (_, i) => repos.runExecution.claim(`worker-${i}`, 30_000)),
    );
    expect(
      claims
        .filter((claim) => claim !== null)
        .map((claim) => claim.skillId)
        .sort(),
    ).toEqual(["skill_one", "skill_site"]);
  });
});

describe("OWNER_MAX_QUEUED", () => {
  it("says the queue is full once the owner has that many runs queued, and only then", async () => {
    await open({ ownerMaxRunning: null, ownerMaxQueued: 2 });
    await queueMany("alice", 1);
    expect(await repos.runs.queueFull("alice")).toBe(false);
    await queue("alice");
    expect(await repos.runs.queueFull("alice")).toBe(true);
    expect(await repos.runs.queueFull("bob")).toBe(false);
    // A run that starts leaves the queue.
    await repos.runExecution.claim("worker-1", 30_000);
    expect(await repos.runs.queueFull("alice")).toBe(false);
  });
});

describe("waiting_for", () => {
  it("is slot for a queued run nothing limits, and null once it was claimed", async () => {
    await open();
    const created = await repos.runs.create({
      owner: "alice",
      skill: { id: "skill_a", name: "A" },
      inputs: {},
    });
    expect(created.waiting_for).toBe("slot");
    await repos.runExecution.claim("worker-1", 30_000);
    expect(await waitingFor("alice", created.id)).toBeNull();
  });

  it("answers a new run with what it waits for already", async () => {
    await open({ ownerMaxRunning: 1, ownerMaxQueued: null });
    await queue("alice");
    await repos.runExecution.claim("worker-1", 30_000);
    const created = await repos.runs.create({
      owner: "alice",
      skill: { id: "skill_a", name: "A" },
      inputs: {},
    });
    expect(created.waiting_for).toBe("owner_limit");
  });
});
