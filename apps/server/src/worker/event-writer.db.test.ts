import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NewRunEvent } from "../db/repositories/run-events.js";
import type { Repositories } from "../repositories.js";
import { openTestRepositories, type TestRepositories } from "../test-support/test-repositories.js";
import { EventWriter } from "./event-writer.js";

// On TEST_FLAVOUR's database: the writer's fence is the repository's.

let opened: TestRepositories;
let repos: Repositories;
const now = new Date("2026-11-27T10:00:00.000Z");

beforeEach(async () => {
  opened = await openTestRepositories({ now: () => now });
  ({ repos } = opened);
});
afterEach(async () => {
  await opened.close();
});

const log = (runId: string, message: string): NewRunEvent => ({
  runId,
  at: now,
  type: "log",
  level: "info",
  message,
});

async function storedMessages(runId: string): Promise<(string | null)[]> {
  const events = await opened.db.prisma.runEvent.findMany({
    where: { runId },
    orderBy: { id: "asc" },
  });
  // The log lines by their message, the rest by their type.
  return events.map((event) => (event.type === "log" ? event.message : event.type));
}

/** A run claimed by worker-1, and the step log's writer of that worker. */
async function claimedWithWriter() {
  const run = await repos.runs.create({
    owner: "alice",
    skill: { id: "skill_a", name: "A" },
    inputs: {},
  });
  await repos.runExecution.claim("worker-1", 30_000);
  const holder = { runId: run.id, workerId: "worker-1" };
  const writer = new EventWriter(repos.runExecution, holder, pino({ level: "silent" }));
  return { run, holder, writer };
}

describe("the step log of a run cancelled while it works", () => {
  it("keeps what a write found the run cancelled with, and what came after, for its ending", async () => {
    const { run, holder, writer } = await claimedWithWriter();

    writer.push([log(run.id, "before the cancel")]);
    await writer.flushed();
    expect(await repos.runs.cancel("alice", run.id)).toBe("cancel");
    // This write meets the cancel: the run is no longer held, and nothing of it is written.
    writer.push([log(run.id, "the step stopped")]);
    await writer.flushed();
    writer.push([log(run.id, "video of 3.0 s")]);
    await writer.flushed();
    expect(await storedMessages(run.id)).toEqual(["run_claimed", "before the cancel"]);

    const { events, checkpoints } = await writer.handOver();
    expect(events.map((event) => event.message)).toEqual(["the step stopped", "video of 3.0 s"]);
    expect(checkpoints).toEqual([]);
    const stopped: NewRunEvent = {
      runId: run.id,
      at: now,
      type: "run_cancelled",
      message: "stopped",
    };
    expect(await repos.runExecution.recordCancelled(holder, stopped, events)).toBe(true);
    expect(await storedMessages(run.id)).toEqual([
      "run_claimed",
      "before the cancel",
      "the step stopped",
      "video of 3.0 s",
      "run_cancelled",
    ]);
  });

  it("writes none of it for a worker that no longer holds a run taken from it", async () => {
    const { run, holder, writer } = await claimedWithWriter();
    await opened.db.prisma.run.update({ where: { id: run.id }, data: { workerId: "worker-2" } });
    writer.push([log(run.id, "late")]);
    await writer.flushed();
    const { events } = await writer.handOver();
    const ended: NewRunEvent = { runId: run.id, at: now, type: "run_finished", durationMs: 1 };
    expect(await repos.runExecution.end(holder, "finish", {}, ended, events, [])).toBe(false);
    expect(await repos.runExecution.recordCancelled(holder, ended, events)).toBe(false);
    expect(await storedMessages(run.id)).toEqual(["run_claimed"]);
  });
});
