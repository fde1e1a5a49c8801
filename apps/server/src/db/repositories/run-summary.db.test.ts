import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Clock } from "../../domain/clock.js";
import type { Repositories } from "../../repositories.js";
import {
  openTestRepositories,
  type TestRepositories,
} from "../../test-support/test-repositories.js";

// On TEST_FLAVOUR's database: the summary's counts are one statement of index ranges
// (run-summary.ts), which both flavours must answer alike.

let opened: TestRepositories | undefined;
let repos: Repositories;
let now: Date;
const clock: Clock = { now: () => now };

beforeEach(async () => {
  now = new Date("2026-12-08T00:00:00.000Z");
  opened = await openTestRepositories(clock);
  repos = opened.repos;
  for (const owner of ["alice", "bob"]) {
    await repos.skills.importAll(owner, [skill("skill_a"), skill("skill_b"), skill("skill_c")]);
  }
});
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

function skill(id: string) {
  return { id, name: id, description: null, inputs: [], definition: {}, definitionHash: id };
}

/** A run of `owner`'s `skillId` created at `at`, then put in `state` (null: left queued). */
async function runAt(owner: string, skillId: string, at: string, state: string | null) {
  now = new Date(at);
  const run = await repos.runs.create({ owner, skill: { id: skillId, name: skillId }, inputs: {} });
  if (state !== null) {
    await opened?.db.direct.single("UPDATE runs SET state = ? WHERE id = ?", [state, run.id]);
  }
  return run.id;
}

describe("the run summary", () => {
  it("counts the owner's runs since a time by state, failures by skill, and the queue now", async () => {
    // Before the span: counted in the queue (still queued) and nowhere else.
    await runAt("alice", "skill_a", "2026-12-06T00:00:00.000Z", null);
    await runAt("alice", "skill_a", "2026-12-06T00:00:00.000Z", "reset");
    // In the span.
    await runAt("alice", "skill_a", "2026-12-07T01:00:00.000Z", null);
    await runAt("alice", "skill_a", "2026-12-07T02:00:00.000Z", "play");
    await runAt("alice", "skill_a", "2026-12-07T03:00:00.000Z", "finish");
    await runAt("alice", "skill_a", "2026-12-07T03:00:01.000Z", "finish");
    await runAt("alice", "skill_b", "2026-12-07T04:00:00.000Z", "reset");
    await runAt("alice", "skill_b", "2026-12-07T04:00:01.000Z", "reset");
    await runAt("alice", "skill_b", "2026-12-07T04:00:02.000Z", "timeout");
    await runAt("alice", "skill_a", "2026-12-07T05:00:00.000Z", "timeout");
    await runAt("alice", "skill_c", "2026-12-07T06:00:00.000Z", "pause");
    await runAt("alice", "skill_c", "2026-12-07T07:00:00.000Z", "cancel");
    // Another owner's runs count for them only.
    await runAt("bob", "skill_c", "2026-12-07T08:00:00.000Z", "reset");
    await runAt("bob", "skill_c", "2026-12-07T08:00:00.000Z", null);
    now = new Date("2026-12-08T00:00:00.000Z");

    const summary = await repos.runs.summary("alice", new Date("2026-12-07T00:00:00.000Z"));
    expect(summary).toEqual({
      since: "2026-12-07T00:00:00.000Z",
      until: "2026-12-08T00:00:00.000Z",
      by_state: { queued: 1, play: 1, pause: 1, finish: 2, reset: 2, cancel: 1, timeout: 2 },
      failures_by_skill: [
        { skill_id: "skill_b", failed: 2, timed_out: 1 },
        { skill_id: "skill_a", failed: 0, timed_out: 1 },
      ],
      queue_depth: 2,
    });
  });

  it("counts a run started exactly at `since`, and answers zeros for an owner with no runs", async () => {
    await runAt("alice", "skill_a", "2026-12-07T00:00:00.000Z", "reset");
    const at = new Date("2026-12-07T00:00:00.000Z");
    const summary = await repos.runs.summary("alice", at);
    expect(summary.by_state.reset).toBe(1);
    expect(summary.failures_by_skill).toEqual([{ skill_id: "skill_a", failed: 1, timed_out: 0 }]);
    const empty = await repos.runs.summary("carol", at);
    expect(empty.by_state).toEqual({
      queued: 0,
      play: 0,
      pause: 0,
      finish: 0,
      reset: 0,
      cancel: 0,
      timeout: 0,
    });
    expect(empty.failures_by_skill).toEqual([]);
    expect(empty.queue_depth).toBe(0);
  });

  it("names at most ten failing skills, most failures first, then by id", async () => {
    await repos.skills.importAll(
      "alice",
      Array.from({ length: 12 }, (_, i) => skill(`skill_f${String(i).padStart(2, "0")}`)),
    );
    for (let i = 0; i < 12; i++) {
      const id = `skill_f${String(i).padStart(2, "0")}`;
      await runAt("alice", id, "2026-12-07T10:00:00.000Z", "reset");
      if (i === 11) await runAt("alice", id, "2026-12-07T10:00:01.000Z", "timeout");
    }
    const summary = await repos.runs.summary("alice", new Date("2026-12-07T00:00:00.000Z"));
    expect(summary.failures_by_skill.map((skill) => skill.skill_id)).toEqual([
      "skill_f11",
      ...Array.from({ length: 9 }, (_, i) => `skill_f${String(i).padStart(2, "0")}`),
    ]);
  });
});
