import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent, RunSession } from "../src/domain/api-types.js";
import {
  startTestServer,
  TEST_VIDEO_SECRET,
  type TestServer,
} from "../src/test-support/test-server.js";
import { call } from "./support/http.js";
import { RunClient } from "./support/runs.js";
import {
  type SkillrunProcess,
  startServerProcess,
  startWorkerProcess,
} from "./support/skillrun-process.js";
import { SLEEPY_SKILL } from "./support/skills.js";
import { openSse, type SseMessage } from "./support/sse.js";

/**
 * The live streams, read over real HTTP by an SSE reader of the test's own: the runs are executed
 * by a `skillrun worker` process (the built command) on the same database, so the server streams
 * what another process writes, on either flavour (on PostgreSQL woken by NOTIFY alone).
 */

const STEPPING = `
id: skill_stepping
name: Stepping
steps:
  - log: one
  - wait: 300ms
  - log: two
  - wait: 300ms
  - set: { done: true }
`;

let server: TestServer;
let alice: string;
let runs: RunClient;
let worker: SkillrunProcess;
let videoDir: string;

beforeAll(async () => {
  // On PostgreSQL no stream here polls or sends a heartbeat within a test: whatever it sends, it
  // was woken for by the NOTIFY of the worker process's writes.
  server = await startTestServer({
    env:
      process.env.TEST_FLAVOUR === "postgres"
        ? { STREAM_POLL_MS: "600000", STREAM_HEARTBEAT_SECONDS: "600" }
        : {},
  });
  await server.importSkillYaml("alice", STEPPING, SLEEPY_SKILL);
  alice = await server.keyFor("alice");
  runs = new RunClient(server.origin, alice);
  videoDir = mkdtempSync(join(tmpdir(), "skillrun-stream-"));
  worker = await startWorkerProcess(server.databaseUrl, {
    VIDEO_DIR: videoDir,
    VIDEO_SIGNING_SECRET: TEST_VIDEO_SECRET,
    WORKER_CONCURRENCY: "2",
  });
}, 30_000);

afterAll(async () => {
  await worker?.stop("SIGKILL");
  await server?.close();
  rmSync(videoDir, { recursive: true, force: true });
});

const streamOf = (runId: string, headers: Record<string, string> = {}) =>
  openSse(`${server.baseUrl}/run/${runId}/events/stream`, {
    authorization: `Bearer ${alice}`,
    ...headers,
  });

const eventsIn = (messages: SseMessage[]) => messages.filter((m) => m.comment === undefined);

/** The events a stream carried, checked to be well-formed messages. */
function parsed(messages: SseMessage[]): RunEvent[] {
  return eventsIn(messages).map((message) => {
    const event = JSON.parse(message.data ?? "") as RunEvent;
    expect(message.id).toBe(String(event.id));
    expect(message.event).toBe(event.type);
    return event;
  });
}

describe("a run's live event stream", () => {
  it("sends the step log as it is written by another process, then closes after the ending", async () => {
    const { id } = await runs.start("skill_stepping");
    const stream = await streamOf(id);
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(stream.headers.get("cache-control")).toBe("no-cache");
    // Live: the first log line arrives while the run is still going.
    await stream.until((messages) => parsed(messages).some((e) => e.message === "one"));
    expect((await runs.get(id)).state).toBe("play");
    await stream.closed;
    const streamed = parsed(stream.messages);
    expect(streamed).toEqual(await runs.events(id));
    expect(streamed.at(-1)?.type).toBe("run_finished");
    expect(new Set(streamed.map((e) => e.id)).size).toBe(streamed.length);
  });

  it("resumes after Last-Event-ID with no event missed or repeated", async () => {
    const { id } = await runs.start("skill_stepping");
    await runs.ended(id);
    const all = await runs.events(id);
    const cut = all[2] as RunEvent;
    const rest = await streamOf(id, { "last-event-id": String(cut.id) });
    await rest.closed;
    expect(parsed(rest.messages)).toEqual(all.slice(3));
    // From the last event: nothing will follow, which a 204 says (EventSource stops there).
    const none = await streamOf(id, { "last-event-id": String(all.at(-1)?.id) });
    expect(none.status).toBe(204);
    await none.closed;
    expect(none.messages).toEqual([]);
  });

  it("closes a cancelled run's stream after its worker's last word", async () => {
    const { id } = await runs.start("skill_sleepy");
    const stream = await streamOf(id);
    await stream.until((messages) => parsed(messages).some((e) => e.type === "run_started"));
    expect(await runs.cancel(id)).toBe("cancel");
    await stream.closed;
    expect(parsed(stream.messages).at(-1)?.type).toBe("run_cancelled");
  });

  it("keeps a quiet stream open with heartbeats", async () => {
    // Heartbeats every 200 ms, and no worker: the run stays queued, its stream quiet.
    const quiet = await startTestServer({ env: { STREAM_HEARTBEAT_SECONDS: "0.2" } });
    try {
      await quiet.importSkillYaml("alice", SLEEPY_SKILL);
      const key = await quiet.keyFor("alice");
      const { id } = await new RunClient(quiet.origin, key).start("skill_sleepy");
      const stream = await openSse(`${quiet.baseUrl}/run/${id}/events/stream`, {
        authorization: `Bearer ${key}`,
      });
      await stream.until(
        (messages) => messages.filter((m) => m.comment === "heartbeat").length >= 2,
      );
      expect(eventsIn(stream.messages)).toEqual([]);
      // Cancelled while queued: no event will ever come, and the stream ends.
      await call(quiet.origin, "POST", `/v1/run/${id}/cancel`, { key });
      await stream.closed;
    } finally {
      await quiet.close();
    }
  });

  it("answers 404 for another owner's run and 422 for a Last-Event-ID that is not one", async () => {
    const { id } = await runs.start("skill_stepping");
    const bob = await server.keyFor("bob");
    const other = await call(server.origin, "GET", `/v1/run/${id}/events/stream`, { key: bob });
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ detail: "Run not found" });
    const bad = await call(server.origin, "GET", `/v1/run/${id}/events/stream`, {
      key: alice,
      headers: { "last-event-id": "12; DROP" },
    });
    expect(bad.status).toBe(422);
    expect((bad.body as { detail: { loc: string[] }[] }).detail[0]?.loc).toEqual([
      "header",
      "last-event-id",
    ]);
    await runs.ended(id);
  });
});

describe("the owner's run stream", () => {
  const runsStream = (key: string, headers: Record<string, string> = {}) =>
    openSse(`${server.baseUrl}/run/stream`, { authorization: `Bearer ${key}`, ...headers });

  /** The runs a run stream carried, checked to be well-formed messages. */
  const runsIn = (messages: SseMessage[]) =>
    eventsIn(messages).map((message) => {
      expect(message.event).toBe("run");
      return { change: Number(message.id), run: JSON.parse(message.data ?? "") as RunSession };
    });

  it("sends each change of the caller's runs as it is made, from when it opened, none of others'", async () => {
    const before = await runs.start("skill_stepping");
    await runs.ended(before.id);
    const stream = await runsStream(alice);
    const bob = await server.keyFor("bob");
    await server.importSkillYaml("bob", STEPPING);
    const bobs = await new RunClient(server.origin, bob).start("skill_stepping");
    const { id } = await runs.start("skill_stepping");
    const seen = await stream.until((messages) =>
      runsIn(messages).some(({ run }) => run.id === id && run.state === "finish"),
    );
    stream.abort();
    const changes = runsIn(seen);
    expect(changes.every(({ run }) => run.owner === "alice")).toBe(true);
    expect(changes.map(({ run }) => run.id)).not.toContain(before.id);
    expect(changes.map(({ run }) => run.id)).not.toContain(bobs.id);
    // Queued, taken, ended: each change once, in order (the run as it was when sent, so a
    // change sent late may already show a later state, never an earlier one).
    const ids = changes.map(({ change }) => change);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(changes).toHaveLength(3);
    const order = [null, "play", "finish"];
    const states = changes.map(({ run }) => order.indexOf(run.state ?? null));
    expect(states).toEqual([...states].sort());
    await new RunClient(server.origin, bob).ended(bobs.id);
  });

  it("resumes after Last-Event-ID with no change missed or repeated", async () => {
    const first = await runsStream(alice);
    const a = await runs.start("skill_stepping");
    const b = await runs.start("skill_stepping");
    const all = runsIn(
      await first.until(
        (messages) => runsIn(messages).filter(({ run }) => run.state === "finish").length === 2,
      ),
    );
    first.abort();
    expect(new Set(all.map(({ run }) => run.id))).toEqual(new Set([a.id, b.id]));
    const cut = all[1]?.change;
    const rest = await runsStream(alice, { "last-event-id": String(cut) });
    const resumed = runsIn(
      await rest.until((messages) => eventsIn(messages).length >= all.length - 2),
    );
    rest.abort();
    expect(resumed.map(({ change }) => change)).toEqual(all.slice(2).map(({ change }) => change));
  });
});

describe("shutting down", () => {
  it("ends open streams on SIGTERM, so that `serve` drains and exits", async () => {
    // No worker anywhere: the run stays queued, and its stream would stay open for ever.
    const serving = await startServerProcess(server.databaseUrl, {
      VIDEO_DIR: videoDir,
      VIDEO_SIGNING_SECRET: TEST_VIDEO_SECRET,
      WORKER_CONCURRENCY: "0",
    });
    try {
      const { id } = await new RunClient(serving.id, alice).start("skill_sleepy");
      const stream = await openSse(`${serving.id}/v1/run/${id}/events/stream`, {
        authorization: `Bearer ${alice}`,
      });
      expect(stream.status).toBe(200);
      serving.signal("SIGTERM");
      // Draining waits for every request in flight: without the stream ending it never exits.
      expect(await serving.exited).toBe(0);
      // Ended by the server, cleanly: the reader saw the stream's end, not a cut connection.
      await stream.closed;
      await call(server.origin, "POST", `/v1/run/${id}/cancel`, { key: alice });
    } finally {
      await serving.stop("SIGKILL");
    }
  });
});
