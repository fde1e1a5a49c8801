import type { StorageState } from "@skillrun/engine";
import { afterEach, describe, expect, it } from "vitest";
import type { Clock } from "../../domain/clock.js";
import { ProfileLimitReached, ProfileTooLarge } from "../../domain/errors.js";
import { SecretBox, SecretUnreadable } from "../../secrets/secret-box.js";
import {
  openTestRepositories,
  type TestRepositories,
} from "../../test-support/test-repositories.js";
import { testSecretBox } from "../../test-support/test-secrets.js";
import { ProfileRepository } from "./profiles.js";

// On TEST_FLAVOUR's database: a profile's versions, its sealing, and the bounds and the fence of
// a run's save, as the statements of profile-sql.ts decide them.

let opened: TestRepositories | undefined;
let profiles: ProfileRepository;
let now: Date;
const clock: Clock = { now: () => now };
const VALUE = "sealed-cookie-value-3e1f";

async function open(): Promise<TestRepositories> {
  now = new Date("2026-12-02T10:00:00.000Z");
  opened = await openTestRepositories(clock);
  const { db } = opened;
  profiles = new ProfileRepository(db.direct, db.flavour, clock, testSecretBox(), {
    maxBytes: 2048,
    perOwner: 2,
  });
  return opened;
}
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

function state(value = VALUE): StorageState {
  return {
    cookies: [
      {
        name: "session",
        value,
        domain: "acme.example",
        path: "/",
        expires: 1_900_000_000,
        httpOnly: true,
        secure: true,
        sameSite: "Lax",
      },
    ],
    origins: [],
  };
}

/** A run of alice's that worker-1 holds, as a claim leaves it. */
async function heldRun({ repos }: TestRepositories): Promise<string> {
  const run = await repos.runs.create({
    owner: "alice",
    skill: { id: "skill_a", name: "A" },
    inputs: {},
  });
  expect((await repos.runExecution.claim("worker-1", 30_000))?.id).toBe(run.id);
  return run.id;
}

describe("browser profiles in the database", () => {
  it("keeps the state sealed, opens it for its owner and name, and counts versions", async () => {
    const { db } = await open();
    expect(await profiles.put("alice", "acme", state())).toMatchObject({ version: 1, cookies: 1 });
    now = new Date(now.getTime() + 1000);
    const second = await profiles.put("alice", "acme", state("another-value"));
    expect(second).toMatchObject({
      version: 2,
      created_at: "2026-12-02T10:00:00.000Z",
      updated_at: "2026-12-02T10:00:01.000Z",
    });
    const [row] = await db.direct.all<{ state: string; summary: string }>(
      "SELECT state, summary FROM profiles WHERE owner = ? AND name = ?",
      ["alice", "acme"],
    );
    expect(row?.state).toMatch(/^v1\./);
    expect(`${row?.state}${row?.summary}`).not.toContain("another-value");
    expect(await profiles.open("alice", "acme")).toEqual({
      version: 2,
      state: state("another-value"),
    });
    expect(await profiles.open("bob", "acme")).toBeNull();
    // Sealed for alice's acme: copied to another name, it does not open.
    await db.direct.single(
      "INSERT INTO profiles (owner, name, version, state, bytes, summary, created_at, updated_at) SELECT owner, 'copy', version, state, bytes, summary, created_at, updated_at FROM profiles WHERE name = 'acme'",
      [],
    );
    await expect(profiles.open("alice", "copy")).rejects.toBeInstanceOf(SecretUnreadable);
  });

  it("bounds an import by PROFILE_MAX_BYTES and the owner's profiles by PROFILES_PER_OWNER", async () => {
    await open();
    await expect(profiles.put("alice", "big", state("x".repeat(3000)))).rejects.toBeInstanceOf(
      ProfileTooLarge,
    );
    await profiles.put("alice", "one", state());
    await profiles.put("alice", "two", state());
    await expect(profiles.put("alice", "three", state())).rejects.toBeInstanceOf(
      ProfileLimitReached,
    );
    // Replacing one is no new profile; another owner has a limit of their own.
    expect(await profiles.put("alice", "two", state())).toMatchObject({ version: 2 });
    expect(await profiles.put("bob", "three", state())).toMatchObject({ version: 1 });
    expect((await profiles.list("alice")).map((p) => p.name)).toEqual(["one", "two"]);
    expect(await profiles.delete("alice", "one")).toBe(true);
    expect(await profiles.delete("alice", "one")).toBe(false);
  });

  it("saves a run's state only while its worker holds the run, within the bounds", async () => {
    const test = await open();
    const runId = await heldRun(test);
    const holder = { runId, workerId: "worker-1" };
    expect(await profiles.saveFromRun(holder, "alice", "acme", state())).toMatchObject({
      saved: true,
      version: 1,
    });
    expect(await profiles.describe("alice", "acme")).toMatchObject({ saved_by_run: runId });
    expect(
      await profiles.saveFromRun(holder, "alice", "acme", state("x".repeat(3000))),
    ).toMatchObject({ saved: false, why: "too_large" });
    await profiles.put("alice", "other", state());
    expect(await profiles.saveFromRun(holder, "alice", "third", state())).toMatchObject({
      saved: false,
      why: "limit",
    });
    // Another worker's claim, or a run that ended: nothing is written.
    expect(
      await profiles.saveFromRun({ runId, workerId: "worker-2" }, "alice", "acme", state()),
    ).toMatchObject({ saved: false, why: "not_held" });
    await test.repos.runs.cancel("alice", runId);
    expect(await profiles.saveFromRun(holder, "alice", "acme", state())).toMatchObject({
      saved: false,
      why: "not_held",
    });
    expect(await profiles.describe("alice", "acme")).toMatchObject({ version: 1 });
  });

  it("does not open under another key", async () => {
    const { db } = await open();
    await profiles.put("alice", "acme", state());
    const other = new ProfileRepository(
      db.direct,
      db.flavour,
      clock,
      new SecretBox(() => Buffer.alloc(32, 7)),
      {
        maxBytes: 2048,
        perOwner: 2,
      },
    );
    await expect(other.open("alice", "acme")).rejects.toThrow(/another key/);
  });
});
