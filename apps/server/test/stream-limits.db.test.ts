import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEventRepository } from "../src/db/repositories/run-events.js";
import { type NewRunEvent, toRunEventRow } from "../src/db/repositories/run-events.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call, skillRecord } from "./support/http.js";
import { openSse, type SseStream } from "./support/sse.js";

// Live streams cannot hurt the server: an owner has at most OWNER_MAX_STREAMS open, streams of
// one run share their reads, and a client that does not read is let go once
// STREAM_MAX_BUFFERED_BYTES wait for it for two heartbeats.

const MAX_STREAMS = 3;
let server: TestServer;
let alice: string;
let bob: string;
let reads = 0;
/** How many characters of messages each read of a run's log gave, in order. */
let readSizes: number[] = [];

/** Counts the reads of a run's log that reach the database. */
function counted(runEvents: RunEventRepository): RunEventRepository {
  return new Proxy(runEvents, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== "follow" || typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        reads += 1;
        const read = await value.apply(target, args);
        if (read) {
          const events = (read as { events: { message: string | null }[] }).events;
          readSizes.push(events.reduce((sum, event) => sum + (event.message?.length ?? 0), 0));
        }
        return read;
      };
    },
  });
}

beforeAll(async () => {
  server = await startTestServer({
    env: {
      OWNER_MAX_STREAMS: String(MAX_STREAMS),
      STREAM_MAX_BUFFERED_BYTES: String(64 * 1024),
      STREAM_HEARTBEAT_SECONDS: "1",
      // An answer is shared for a poll's time: long enough that streams opened a moment apart on
      // a busy machine still share theirs.
      STREAM_POLL_MS: "5000",
    },
    override: (deps) => ({ ...deps, runEvents: counted(deps.runEvents) }),
  });
  alice = await server.keyFor("alice");
  bob = await server.keyFor("bob");
  await server.importSkills("alice", [skillRecord("skill_streamed", "Streamed")]);
});

afterAll(() => server?.close());

/** A queued run of alice's whose log holds `count` events of `bytes` characters each. */
async function runWithLog(count: number, bytes: number): Promise<string> {
  const run = await server.repos.runs.create({
    owner: "alice",
    skill: { id: "skill_streamed", name: "Streamed" },
    inputs: {},
  });
  const events: NewRunEvent[] = Array.from({ length: count }, (_, i) => ({
    runId: run.id,
    at: new Date(),
    type: "log",
    attempt: 1,
    message: `line ${i} ${"x".repeat(bytes)}`,
  }));
  for (let i = 0; i < events.length; i += 500) {
    await server.db.prisma.runEvent.createMany({
      data: events.slice(i, i + 500).map(toRunEventRow),
    });
  }
  return run.id;
}

function stream(runId: string, key = alice): Promise<SseStream> {
  return openSse(`${server.baseUrl}/run/${runId}/events/stream`, {
    authorization: `Bearer ${key}`,
  });
}

describe("OWNER_MAX_STREAMS", () => {
  it("refuses an owner's stream past the limit with a 429 and Retry-After, not another owner's", async () => {
    const runId = await runWithLog(1, 10);
    const open = await Promise.all(Array.from({ length: MAX_STREAMS }, () => stream(runId)));
    try {
      expect(open.map((s) => s.status)).toEqual(Array(MAX_STREAMS).fill(200));
      const refused = await call(server.origin, "GET", `/v1/run/${runId}/events/stream`, {
        key: alice,
      });
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("5");
      expect(refused.body).toEqual({
        detail: `Too many live streams: at most ${MAX_STREAMS} open at once per owner (OWNER_MAX_STREAMS)`,
      });
      const changes = await call(server.origin, "GET", "/v1/run/stream", { key: alice });
      expect(changes.status).toBe(429);
      // Another owner's streams are counted apart.
      const bobs = await openSse(`${server.baseUrl}/run/stream`, {
        authorization: `Bearer ${bob}`,
      });
      expect(bobs.status).toBe(200);
      bobs.abort();
    } finally {
      for (const s of open) s.abort();
    }
    // Closed streams give their places back.
    await expect
      .poll(async () => {
        const again = await stream(runId);
        again.abort();
        return again.status;
      })
      .toBe(200);
  });
});

/** `count` streams of the run, once the places of streams closed just before are free again. */
async function streams(runId: string, count: number): Promise<SseStream[]> {
  let open: SseStream[] = [];
  await expect
    .poll(async () => {
      for (const s of open) s.abort();
      open = await Promise.all(Array.from({ length: count }, () => stream(runId)));
      return open.every((s) => s.status === 200);
    })
    .toBe(true);
  return open;
}

describe("streams of one run", () => {
  it("share their reads of its log", async () => {
    const runId = await runWithLog(1200, 20);
    // Its ending last: each stream closes once it has read the whole log, three pages of 500.
    await server.db.prisma.runEvent.createMany({
      data: [toRunEventRow({ runId, at: new Date(), type: "run_cancelled", attempt: 1 })],
    });
    reads = 0;
    const open = await streams(runId, MAX_STREAMS);
    try {
      await Promise.all(open.map((s) => s.closed));
      for (const s of open) {
        expect(s.messages.filter((m) => m.event === "log")).toHaveLength(1200);
      }
      // Unshared, each stream reads each of the three pages: nine reads.
      expect(reads).toBeLessThan(6);
    } finally {
      for (const s of open) s.abort();
    }
  });
});

describe("a log of large entries", () => {
  it("is read at most a megabyte at a time, and streamed whole and in order", async () => {
    // 12 entries of 300,000 characters: three fit in a read's 1,000,000, a fourth does not.
    const runId = await runWithLog(12, 300_000);
    await server.db.prisma.runEvent.createMany({
      data: [toRunEventRow({ runId, at: new Date(), type: "run_cancelled", attempt: 1 })],
    });
    readSizes = [];
    const [one] = await streams(runId, 1);
    await one?.closed;
    const logs = (one?.messages ?? []).filter((m) => m.event === "log");
    const messages = logs.map((m) => (JSON.parse(m.data ?? "null") as { message: string }).message);
    expect(messages.map((message) => message.split(" ", 2).join(" "))).toEqual(
      Array.from({ length: 12 }, (_, i) => `line ${i}`),
    );
    expect(messages.every((message) => message.endsWith("x".repeat(300_000)))).toBe(true);
    // Three entries a read: four reads with something in them, none of a megabyte.
    const filled = readSizes.filter((size) => size > 0);
    expect(filled).toHaveLength(4);
    for (const size of filled) expect(size).toBeGreaterThan(900_000);
    for (const size of filled) expect(size).toBeLessThan(1_000_000);
  });
});

describe("the log of a run that ended long ago", () => {
  it("is streamed whole when it takes more than one read", async () => {
    const runId = await runWithLog(12, 300_000);
    await server.db.prisma.runEvent.createMany({
      data: [toRunEventRow({ runId, at: new Date(), type: "run_finished", attempt: 1 })],
    });
    // Ended by its worker a minute ago: no last word is awaited, the log is all there is.
    await server.db.prisma.run.update({
      where: { id: runId },
      data: { state: "finish", workerId: "worker_gone", endTime: new Date(Date.now() - 60_000) },
    });
    const [one] = await streams(runId, 1);
    await one?.closed;
    const types = (one?.messages ?? []).map((m) => m.event);
    expect(types.filter((type) => type === "log")).toHaveLength(12);
    expect(types.at(-1)).toBe("run_finished");
  });
});

describe("a client that does not read", () => {
  it("is let go once what waits for it has waited two heartbeats", async () => {
    // Far more than the socket buffers hold: the server has to wait for the client.
    const runId = await runWithLog(4000, 4000);
    const quiet = await runWithLog(1, 10);
    const { port } = new URL(server.origin);
    const socket = connect(Number(port), "127.0.0.1");
    let received = 0;
    socket.on("data", (chunk: Buffer) => {
      received += chunk.length;
    });
    socket.pause();
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    socket.on("error", () => {});
    socket.write(
      `GET /v1/run/${runId}/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${alice}\r\n\r\n`,
    );
    // The stalled stream holds one of alice's places until the server lets it go: then all of
    // them can be taken again.
    await expect
      .poll(
        async () => {
          const all = await Promise.all(Array.from({ length: MAX_STREAMS }, () => stream(quiet)));
          for (const s of all) s.abort();
          return all.every((s) => s.status === 200);
        },
        { timeout: 30_000, interval: 200 },
      )
      .toBe(true);
    // Reading again, the client finds its connection closed, far short of the whole log.
    socket.resume();
    await closed;
    expect(received).toBeGreaterThan(0);
    expect(received).toBeLessThan(4000 * 4000);
  });
});
