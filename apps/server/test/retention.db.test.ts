import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { toRunEventRow } from "../src/db/repositories/run-events.js";
import { Retention } from "../src/files/retention.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call, skillRecord } from "./support/http.js";
import { VIDEO_BYTES } from "./support/videos.js";

/**
 * RETENTION_DAYS (docs/operations.md): the videos and files of runs ended longer ago, and uploads
 * older than that which no queued or running run names, are removed, with one log line; what is
 * recent or still in use stays. Time is an injected clock.
 */

const DAY = 24 * 60 * 60 * 1000;
const START = Date.parse("2026-11-01T09:00:00.000Z");
let now = START;
const clock = { now: () => new Date(now) };

const SKILL = "skill_kept";
let server: TestServer;
let alice: string;

beforeAll(async () => {
  server = await startTestServer({ clock });
  alice = await server.keyFor("alice");
  await server.importSkills("alice", [
    skillRecord(SKILL, "Kept", [
      { id: "in_doc", json_key: "doc", data_type: "file", required: false },
    ]),
  ]);
});

afterAll(async () => {
  await server?.close();
});

beforeEach(() => {
  now = START;
});

/** A retention over the test server's store and database, logging into `lines`. */
function retention(days: number, lines: Record<string, unknown>[] = []): Retention {
  const logger = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const { repos, fileStore } = server;
  return new Retention({
    retention: repos.retention,
    runFiles: repos.runFiles,
    uploads: repos.uploads,
    fileStore,
    clock,
    logger,
    days,
  });
}

/** A run of alice's with a video and a file, ended (cancelled) now, unless told to stay queued. */
async function runWithFiles(ended = true, inputs: Record<string, unknown> = {}): Promise<string> {
  const run = await server.repos.runs.create({
    owner: "alice",
    skill: { id: SKILL, name: "Kept" },
    inputs,
  });
  await server.putVideo(run.id, VIDEO_BYTES);
  // A video the recorder never completed, as after a crash.
  writeFileSync(join(server.fileStore.dir, `${run.id}.webm.part`), "half");
  await server.putRunFile(run.id, "report.csv", new Uint8Array(100));
  if (ended) await server.repos.runs.cancel("alice", run.id);
  return run.id;
}

async function upload(): Promise<string> {
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(1000)]), "in.bin");
  const response = await fetch(`${server.baseUrl}/file`, {
    method: "POST",
    headers: { authorization: `Bearer ${alice}` },
    body: form,
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { id: string }).id;
}

function hasFiles(runId: string): boolean {
  return existsSync(server.fileStore.filesDirOf(runId));
}

function hasVideo(runId: string): boolean {
  return existsSync(join(server.fileStore.dir, `${runId}.webm`));
}

async function indexed(runId: string): Promise<number> {
  return server.db.prisma.runFile.count({ where: { runId } });
}

describe("retention", () => {
  it("removes the video, files and index rows of runs ended more than RETENTION_DAYS ago, keeping recent and unfinished runs", async () => {
    const old = await runWithFiles();
    now = START + 10 * DAY;
    const recent = await runWithFiles();
    const queued = await runWithFiles(false);
    now = START + 30 * DAY + 60_000;
    const lines: Record<string, unknown>[] = [];
    const report = await retention(30, lines).sweep();

    expect(hasVideo(old) || hasFiles(old)).toBe(false);
    expect(existsSync(join(server.fileStore.dir, `${old}.webm.part`))).toBe(false);
    expect(await indexed(old)).toBe(0);
    for (const kept of [recent, queued]) {
      expect(hasVideo(kept) && hasFiles(kept)).toBe(true);
      expect(await indexed(kept)).toBe(1);
    }
    // The run itself stays, and says it has no video and no files any more.
    const run = await call(server.origin, "GET", `/v1/run/${old}`, { key: alice });
    expect(run.body).toMatchObject({ state: "cancel", video_url: null });
    const files = await call(server.origin, "GET", `/v1/run/${old}/files`, { key: alice });
    expect(files.body).toEqual([]);

    expect(report).toMatchObject({ runs: 1, videos: 1, runFiles: 1 });
    expect(report?.bytes).toBe(VIDEO_BYTES.length + "half".length + 100);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 30,
      retention: report,
      msg: expect.stringMatching(
        /^retention removed the videos and files of 1 runs ended more than 30 days ago/,
      ),
    });
  });

  it("removes uploads older than RETENTION_DAYS unless a queued or running run names them", async () => {
    const unused = await upload();
    const named = await upload();
    const namedByEnded = await upload();
    const queued = await call(server.origin, "POST", "/v1/run/", {
      key: alice,
      json: { skill_id: SKILL, inputs: { doc: named } },
    });
    expect(queued.status, queued.text).toBe(200);
    const ended = await call(server.origin, "POST", "/v1/run/", {
      key: alice,
      json: { skill_id: SKILL, inputs: { doc: namedByEnded } },
    });
    await server.repos.runs.cancel("alice", (ended.body as { id: string }).id);
    now = START + 5 * DAY;
    const young = await upload();

    now = START + 30 * DAY + 1;
    await retention(30).sweep();
    const left = await server.db.prisma.uploadedFile.findMany({ select: { id: true } });
    const ids = left.map((row) => row.id);
    expect(ids).toContain(named);
    expect(ids).toContain(young);
    expect(ids).not.toContain(unused);
    expect(ids).not.toContain(namedByEnded);
    expect(existsSync(server.fileStore.uploadPathOf(unused))).toBe(false);
    expect(existsSync(server.fileStore.uploadPathOf(named))).toBe(true);
    // A removed upload is no longer one a run can name.
    const late = await call(server.origin, "POST", "/v1/run/", {
      key: alice,
      json: { skill_id: SKILL, inputs: { doc: unused } },
    });
    expect(late.status).toBe(422);
  });

  it("removes the temporary files of uploads a dead process left, after a day", async () => {
    await upload();
    const stale = join(server.fileStore.uploadsDir, ".incoming-left-by-a-crash");
    const fresh = join(server.fileStore.uploadsDir, ".incoming-being-received");
    writeFileSync(stale, "x");
    writeFileSync(fresh, "y");
    const twoDaysAgo = new Date(START - 2 * DAY);
    utimesSync(stale, twoDaysAgo, twoDaysAgo);
    await retention(30).sweep();
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
  });

  it("removes what earlier attempts of an old run left too", async () => {
    const old = await runWithFiles();
    const recent = await runWithFiles();
    for (const runId of [old, recent]) {
      writeFileSync(join(server.fileStore.dir, `${runId}-attempt-1.webm`), "first attempt");
      mkdirSync(join(server.fileStore.dir, `${runId}-attempt-1-files`));
      writeFileSync(join(server.fileStore.dir, `${runId}-attempt-1-files`, "shot.png"), "shot");
    }
    // Only `old` ends before the cutoff.
    await server.db.prisma.run.update({
      where: { id: old },
      data: { endTime: new Date(START - 40 * DAY) },
    });
    const report = await retention(30).sweep();
    const left = readdirSync(server.fileStore.dir);
    expect(left.filter((entry) => entry.startsWith(old))).toEqual([]);
    expect(left.filter((entry) => entry.startsWith(`${recent}-attempt-1`)).sort()).toEqual([
      `${recent}-attempt-1-files`,
      `${recent}-attempt-1.webm`,
    ]);
    expect(report).toMatchObject({ runs: 1, videos: 2 });
  });

  it("keeps everything with RETENTION_DAYS=0", async () => {
    const old = await runWithFiles();
    const id = await upload();
    now = START + 10_000 * DAY;
    const lines: Record<string, unknown>[] = [];
    expect(await retention(0, lines).sweep()).toBeNull();
    expect(hasVideo(old) && hasFiles(old)).toBe(true);
    expect(existsSync(server.fileStore.uploadPathOf(id))).toBe(true);
    expect(lines).toEqual([]);
  });

  it("is harmless when several workers sweep at once, and says nothing when nothing was removed", async () => {
    const old = await runWithFiles();
    now = START + 31 * DAY;
    const reports = await Promise.all([retention(30).sweep(), retention(30).sweep()]);
    expect(hasVideo(old) || hasFiles(old)).toBe(false);
    expect(reports.reduce((sum, report) => sum + (report?.videos ?? 0), 0)).toBeGreaterThanOrEqual(
      1,
    );
    const lines: Record<string, unknown>[] = [];
    expect(await retention(30, lines).sweep()).toEqual({
      runs: 0,
      videos: 0,
      runFiles: 0,
      uploads: 0,
      webhookDeliveries: 0,
      stepLogEvents: 0,
      checkpoints: 0,
      bytes: 0,
    });
    expect(lines).toEqual([]);
  });
});

describe("retention of step logs", () => {
  it("removes the step log of a run ended more than RETENTION_DAYS ago; the run stays", async () => {
    const withLog = async (): Promise<string> => {
      const run = await server.repos.runs.create({
        owner: "alice",
        skill: { id: SKILL, name: "Kept" },
        inputs: {},
      });
      await server.db.prisma.runCheckpoint.create({
        data: {
          runId: run.id,
          stepLabel: "step 1 (log)",
          seq: 0,
          topLevel: true,
          state: "sealed",
          bytes: 6,
          createdAt: clock.now(),
        },
      });
      await server.db.prisma.runEvent.createMany({
        data: [0, 1, 2].map((i) =>
          toRunEventRow({
            runId: run.id,
            at: clock.now(),
            type: "log",
            attempt: 1,
            message: `${i}`,
          }),
        ),
      });
      await server.repos.runs.cancel("alice", run.id);
      return run.id;
    };
    const eventsOf = async (runId: string) =>
      (await call(server.origin, "GET", `/v1/run/${runId}/events`, { key: alice }))
        .body as unknown[];
    const old = await withLog();
    now = START + 10 * DAY;
    const recent = await withLog();
    now = START + 31 * DAY;
    const report = await retention(30).sweep();
    expect(report?.stepLogEvents).toBe(3);
    // The checkpoints go with the step log: each run kept one (before its first step).
    expect(report?.checkpoints).toBe(1);
    const kept = await server.db.prisma.runCheckpoint.findMany({ select: { runId: true } });
    expect(kept).toEqual([{ runId: recent }]);
    expect(await eventsOf(old)).toEqual([]);
    expect(await eventsOf(recent)).toHaveLength(3);
    const run = await call(server.origin, "GET", `/v1/run/${old}`, { key: alice });
    expect([run.status, (run.body as { state: string }).state]).toEqual([200, "cancel"]);
  });
});

describe("retention of live views", () => {
  it("removes the live view of any run that has ended (a parked run cancelled), keeping others'", async () => {
    const parked = await server.repos.runs.create({
      owner: "alice",
      skill: { id: SKILL, name: "Kept" },
      inputs: {},
    });
    const going = await server.repos.runs.create({
      owner: "alice",
      skill: { id: SKILL, name: "Kept" },
      inputs: {},
    });
    // Their last frames, as a worker writes them when it parks a run.
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xd9]);
    for (const run of [parked, going]) {
      expect(await server.repos.liveViews.writeFrame(run.id, jpeg, clock.now())).toBe(true);
    }
    // Cancelled while parked: no worker held it to remove its live view.
    await server.repos.runs.cancel("alice", parked.id);
    await retention(30).sweep();
    const kept = await server.db.prisma.runLiveView.findMany({ select: { runId: true } });
    expect(kept).toEqual([{ runId: going.id }]);
    // Nor is one written for an ended run.
    expect(await server.repos.liveViews.writeFrame(parked.id, jpeg, clock.now())).toBe(false);
  });
});

describe("retention of webhook deliveries", () => {
  it("removes deliveries done with before the cutoff, keeping pending and recent ones", async () => {
    const hook = await server.repos.webhooks.create("alice", "http://127.0.0.1:9/kept", [
      "run.finished",
    ]);
    const runId = await runWithFiles();
    const write = (id: string, state: string, at: number) =>
      server.db.prisma.webhookDelivery.create({
        data: {
          id,
          webhookId: hook?.id ?? "",
          runId,
          event: "run.finished",
          body: "{}",
          createdAt: new Date(at),
          state,
          // Pending ones are not due for a year: no sender takes them meanwhile.
          nextAttemptAt: state === "pending" ? new Date(at + 365 * DAY) : null,
          attempts: { create: { at: new Date(at), status: 500, latencyMs: 1 } },
        },
      });
    await write("msg_old_delivered", "delivered", START);
    await write("msg_old_failed", "failed", START);
    await write("msg_old_pending", "pending", START);
    await write("msg_recent", "delivered", START + 20 * DAY);
    now = START + 30 * DAY + 60_000;
    const lines: Record<string, unknown>[] = [];
    const report = await retention(30, lines).sweep();
    expect(report?.webhookDeliveries).toBe(2);
    const left = await server.db.prisma.webhookDelivery.findMany({
      where: { webhookId: hook?.id ?? "" },
      select: { id: true },
      orderBy: { id: "asc" },
    });
    expect(left.map((row) => row.id)).toEqual(["msg_old_pending", "msg_recent"]);
    expect(
      await server.db.prisma.webhookAttempt.count({ where: { deliveryId: "msg_old_failed" } }),
    ).toBe(0);
    expect(lines[0]?.msg).toMatch(/, 0 uploads and 2 webhook deliveries: /);
    await server.repos.webhooks.delete("alice", hook?.id ?? "");
  });
});

describe("the worker's sweeps", () => {
  it("sweeps at start and then every retentionIntervalMs", async () => {
    let workerNow = START;
    const own = await startTestServer({
      clock: { now: () => new Date(workerNow) },
      worker: { concurrency: 1, retentionIntervalMs: 100 },
      env: { RETENTION_DAYS: "7" },
    });
    try {
      await own.importSkills("alice", [skillRecord(SKILL, "Kept")]);
      const run = await own.repos.runs.create({
        owner: "alice",
        skill: { id: SKILL, name: "Kept" },
        inputs: {},
      });
      await own.repos.runs.cancel("alice", run.id);
      await own.putRunFile(run.id, "a.txt", new Uint8Array(3));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(existsSync(own.fileStore.filesDirOf(run.id))).toBe(true);
      workerNow = START + 8 * DAY;
      await expect
        .poll(() => existsSync(own.fileStore.filesDirOf(run.id)), { timeout: 5000 })
        .toBe(false);
    } finally {
      await own.close();
    }
  });
});
