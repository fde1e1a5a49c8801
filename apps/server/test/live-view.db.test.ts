import { randomBytes } from "node:crypto";
import { connect } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { LiveViewRepository } from "../src/db/repositories/live-views.js";
import { VideoUrlSigner } from "../src/files/signed-url.js";
import type { LiveViewOptions } from "../src/http/live-feeds.js";
import {
  startTestServer,
  TEST_VIDEO_SECRET,
  type TestServer,
} from "../src/test-support/test-server.js";
import { call, skillRecord } from "./support/http.js";
import { openMultipart } from "./support/multipart.js";
import { openSse } from "./support/sse.js";
import { tampered, withQuery } from "./support/videos.js";

// The live view's API side (docs/decisions/0057-live-view-through-the-database.md), on both
// databases: the signed address, the multipart stream a worker's frames reach through the
// database, and what hostile clients get: tampered and expired links, ended and unknown runs,
// many viewers, a client that does not read.

const MAX_STREAMS = 25;
const OPTIONS: LiveViewOptions = {
  urlTtlSeconds: 60,
  pollMs: 100,
  watchForMs: 1_000,
  renewEveryMs: 300,
  stallMs: 500,
};
let server: TestServer;
let alice: string;
let bob: string;
/** Moves the server's clock (link expiry) ahead of the system's. */
let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };
/** Reads of each run's live view that reached the database. */
const reads = new Map<string, number>();

function counted(liveViews: LiveViewRepository): LiveViewRepository {
  return new Proxy(liveViews, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== "read" || typeof value !== "function") return value;
      return (runId: string, after: number) => {
        reads.set(runId, (reads.get(runId) ?? 0) + 1);
        return value.call(target, runId, after);
      };
    },
  });
}

beforeAll(async () => {
  server = await startTestServer({
    clock,
    env: { OWNER_MAX_STREAMS: String(MAX_STREAMS) },
    override: (deps) => ({
      ...deps,
      liveViews: counted(deps.liveViews),
      config: { ...deps.config, liveView: OPTIONS },
    }),
  });
  alice = await server.keyFor("alice");
  bob = await server.keyFor("bob");
  await server.importSkills("alice", [skillRecord("skill_watched", "Watched")]);
});

afterAll(() => server?.close());

beforeEach(() => {
  offsetMs = 0;
});

/** A queued run of alice's (no worker here: it stays so until the test ends it). */
async function aliceRun(): Promise<string> {
  const run = await server.repos.runs.create({
    owner: "alice",
    skill: { id: "skill_watched", name: "Watched" },
    inputs: {},
  });
  return run.id;
}

/** A JPEG-shaped frame of `bytes` bytes (SOI, random bytes, EOI). */
function frame(bytes = 2_000): Buffer {
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    randomBytes(bytes - 4),
    Buffer.from([0xff, 0xd9]),
  ]);
}

/** Writes the run's latest frame as its worker does. */
async function draw(runId: string, jpeg: Buffer): Promise<void> {
  expect(await server.repos.liveViews.writeFrame(runId, jpeg, new Date())).toBe(true);
}

async function liveUrl(runId: string, key = alice): Promise<string> {
  const reply = await call(server.origin, "GET", `/v1/run/${runId}/live_url`, { key });
  expect(reply.status, reply.text).toBe(200);
  return reply.body as string;
}

/** Ends the run as a worker would (its state and end time). */
async function end(runId: string): Promise<void> {
  await server.db.prisma.run.update({
    where: { id: runId },
    data: { state: "cancel", endTime: new Date() },
  });
}

describe("GET /run/{id}/live_url", () => {
  it("signs a live view address of the run that expires in a minute", async () => {
    const runId = await aliceRun();
    const before = Math.floor(clock.now().getTime() / 1000) + 60;
    const url = await liveUrl(runId);
    const after = Math.floor(clock.now().getTime() / 1000) + 60;
    const match = new RegExp(
      `^${server.origin}/v1/run/${runId}/live\\?expires=(\\d+)&signature=[\\w-]{43}$`,
    ).exec(url);
    expect(match, url).not.toBeNull();
    expect(Number(match?.[1])).toBeGreaterThanOrEqual(before);
    expect(Number(match?.[1])).toBeLessThanOrEqual(after);
  });

  it("is a 404 for an unknown run and for another owner's", async () => {
    const runId = await aliceRun();
    for (const [id, key] of [
      ["run_unknown", alice],
      [runId, bob],
    ] as const) {
      const reply = await call(server.origin, "GET", `/v1/run/${id}/live_url`, { key });
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({ detail: "Run not found" });
    }
  });

  it("is a 409 once the run has ended", async () => {
    const runId = await aliceRun();
    await end(runId);
    const reply = await call(server.origin, "GET", `/v1/run/${runId}/live_url`, { key: alice });
    expect(reply.status).toBe(409);
    expect(reply.body).toEqual({ detail: "Run has ended" });
  });

  it("needs an API key", async () => {
    const reply = await call(server.origin, "GET", `/v1/run/${await aliceRun()}/live_url`);
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ detail: "Not authenticated" });
  });
});

describe("GET /run/{id}/live", () => {
  it("streams the latest frame at once, then each new one, and ends with the run", async () => {
    const runId = await aliceRun();
    const first = frame();
    await draw(runId, first);
    const stream = await openMultipart(await liveUrl(runId));
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers["content-type"]).toBe(
        "multipart/x-mixed-replace; boundary=skillrun-frame",
      );
      expect(stream.headers["cache-control"]).toBe("no-store");
      await stream.until(1);
      const second = frame(3_000);
      await draw(runId, second);
      const parts = await stream.until(2);
      expect(parts.map((part) => part.headers)).toEqual([
        { "content-type": "image/jpeg", "content-length": String(first.length) },
        { "content-type": "image/jpeg", "content-length": String(second.length) },
      ]);
      expect(parts[0]?.body.equals(first)).toBe(true);
      expect(parts[1]?.body.equals(second)).toBe(true);
      // While the stream is open its run is watched: the worker sends frames until then.
      const row = await server.db.prisma.runLiveView.findUnique({ where: { runId } });
      expect(row?.watchEndsAt?.getTime()).toBeGreaterThan(Date.now());
      await end(runId);
      expect(await stream.ended).toEqual({ closingBoundary: true });
      expect(stream.parts).toHaveLength(2);
      // The ended run's frame serves nobody: it goes.
      await expect
        .poll(() => server.db.prisma.runLiveView.findUnique({ where: { runId } }))
        .toBeNull();
    } finally {
      stream.abort();
    }
  });

  it("sends nothing while the run has no frame, and the first one when it comes", async () => {
    const runId = await aliceRun();
    const stream = await openMultipart(await liveUrl(runId));
    try {
      expect(stream.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 3 * OPTIONS.pollMs));
      expect(stream.parts).toEqual([]);
      const only = frame();
      await draw(runId, only);
      const [part] = await stream.until(1);
      expect(part?.body.equals(only)).toBe(true);
    } finally {
      stream.abort();
    }
  });

  it("refuses a tampered signature, a moved expiry and a video's signature with 403", async () => {
    const runId = await aliceRun();
    const url = await liveUrl(runId);
    const signature = new URL(url).searchParams.get("signature") as string;
    const expires = new URL(url).searchParams.get("expires") as string;
    const video = new URL(server.videoUrlFor(runId)).searchParams;
    for (const bad of [
      withQuery(url, { signature: tampered(signature) }),
      withQuery(url, { expires: String(Number(expires) + 3600) }),
      withQuery(url, {
        expires: video.get("expires") as string,
        signature: video.get("signature") as string,
      }),
      url.replace(runId, await aliceRun()),
    ]) {
      const reply = await call(server.origin, "GET", bad);
      expect(reply.status, bad).toBe(403);
      expect(reply.body).toEqual({ detail: "Invalid live view signature" });
    }
  });

  it("serves an address until it expires and refuses it with 403 from then on", async () => {
    const runId = await aliceRun();
    const url = await liveUrl(runId);
    offsetMs = 59_000;
    const inTime = await openMultipart(url);
    inTime.abort();
    expect(inTime.status).toBe(200);
    offsetMs = 60_000;
    const reply = await call(server.origin, "GET", url);
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({ detail: "Live view link expired" });
  });

  it("ends an open stream when its address expires", async () => {
    const runId = await aliceRun();
    const url = await liveUrl(runId);
    // Opened a second before the address expires.
    offsetMs = 59_000;
    const stream = await openMultipart(url);
    expect(stream.status).toBe(200);
    expect(await stream.ended).toEqual({ closingBoundary: true });
  });

  it("is a 422 without a well-formed signature and expiry", async () => {
    const runId = await aliceRun();
    const url = await liveUrl(runId);
    const missing = await call(server.origin, "GET", withQuery(url, { expires: undefined }));
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({
      detail: [{ loc: ["query", "expires"], msg: "Field required", type: "missing" }],
    });
    const short = await call(server.origin, "GET", withQuery(url, { signature: "abc" }));
    expect(short.status).toBe(422);
    expect((short.body as { detail: { loc: unknown }[] }).detail[0]?.loc).toEqual([
      "query",
      "signature",
    ]);
  });

  it("is a 409 for an ended run and a 404 for an unknown one, even with a genuine signature", async () => {
    const runId = await aliceRun();
    const url = await liveUrl(runId);
    await end(runId);
    const ended = await call(server.origin, "GET", url);
    expect(ended.status).toBe(409);
    expect(ended.body).toEqual({ detail: "Run has ended" });
    const signer = new VideoUrlSigner(TEST_VIDEO_SECRET, 3600, clock);
    const unknown = await call(
      server.origin,
      "GET",
      signer.liveUrlFor(server.origin, "run_unknown", 60),
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: "Run not found" });
  });
});

describe("many viewers", () => {
  it("of one run share one read of its frame, and each gets every frame", async () => {
    const runId = await aliceRun();
    const url = await liveUrl(runId);
    const viewers = await Promise.all(Array.from({ length: 20 }, () => openMultipart(url)));
    try {
      expect(viewers.map((viewer) => viewer.status)).toEqual(Array(20).fill(200));
      const frames = [frame(), frame(), frame()];
      for (const [i, jpeg] of frames.entries()) {
        await draw(runId, jpeg);
        await Promise.all(viewers.map((viewer) => viewer.until(i + 1)));
      }
      for (const viewer of viewers) {
        expect(viewer.parts.map((part) => part.body)).toEqual(frames);
      }
      // Each viewer reading for itself would take at least 60 reads for three frames.
      expect(reads.get(runId)).toBeLessThan(40);
    } finally {
      for (const viewer of viewers) viewer.abort();
    }
  });

  it("count among the owner's live streams (OWNER_MAX_STREAMS) with the step logs'", async () => {
    const runId = await aliceRun();
    const url = await liveUrl(runId);
    const viewers = await Promise.all(
      Array.from({ length: MAX_STREAMS - 1 }, () => openMultipart(url)),
    );
    const log = await openSse(`${server.baseUrl}/run/${runId}/events/stream`, {
      authorization: `Bearer ${alice}`,
    });
    try {
      expect(log.status).toBe(200);
      const refused = await call(server.origin, "GET", url);
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("5");
      expect(refused.body).toEqual({
        detail: `Too many live streams: at most ${MAX_STREAMS} open at once per owner (OWNER_MAX_STREAMS)`,
      });
      const logRefused = await call(server.origin, "GET", `/v1/run/${runId}/events/stream`, {
        key: alice,
      });
      expect(logRefused.status).toBe(429);
    } finally {
      log.abort();
      for (const viewer of viewers) viewer.abort();
    }
    // Closed streams give their places back.
    await expect
      .poll(async () => {
        const again = await openMultipart(url);
        again.abort();
        return again.status;
      })
      .toBe(200);
  });

  it("cost nothing once they have left: no read, and the watch lapses", async () => {
    const runId = await aliceRun();
    const viewer = await openMultipart(await liveUrl(runId));
    await draw(runId, frame());
    await viewer.until(1);
    viewer.abort();
    await expect
      .poll(async () => {
        const row = await server.db.prisma.runLiveView.findUnique({ where: { runId } });
        return (row?.watchEndsAt?.getTime() ?? 0) < Date.now();
      })
      .toBe(true);
    const before = reads.get(runId);
    await new Promise((resolve) => setTimeout(resolve, 5 * OPTIONS.pollMs));
    expect(reads.get(runId)).toBe(before);
  });
});

describe("a client that does not read", () => {
  it("misses frames instead of queueing them, and is let go", { timeout: 90_000 }, async () => {
    const runId = await aliceRun();
    const url = new URL(await liveUrl(runId));
    const socket = connect(Number(url.port), url.hostname);
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(`GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
    // Reads nothing from here on.
    socket.pause();
    let closed = false;
    socket.once("close", () => {
      closed = true;
    });
    let offered = 0;
    const big = frame(1_500_000);
    const deadline = Date.now() + 40_000;
    // Frames keep coming (a page that keeps changing) until the server lets the client go.
    while (Date.now() < deadline) {
      await draw(runId, Buffer.concat([big.subarray(0, -3), randomBytes(1), big.subarray(-2)]));
      offered += big.length;
      await new Promise((resolve) => setTimeout(resolve, OPTIONS.pollMs));
      const row = await server.db.prisma.runLiveView.findUnique({ where: { runId } });
      // The server no longer renews the watch once its only viewer is gone.
      const lapsed = (row?.watchEndsAt?.getTime() ?? 0) < Date.now() - OPTIONS.watchForMs;
      // Enough offered to fill the connection's buffers many times over, on a busy machine too.
      if (lapsed && offered >= 20 * big.length) break;
    }
    // What the client can still read is what it got: far less than what was offered.
    let received = 0;
    let tail = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      received += chunk.length;
      tail = Buffer.concat([tail, chunk]).subarray(-64);
    });
    socket.resume();
    await expect.poll(() => closed, { timeout: 10_000 }).toBe(true);
    // Let go (the connection destroyed), not ended: no closing boundary.
    expect(tail.toString("latin1")).not.toContain("--skillrun-frame--");
    expect(offered).toBeGreaterThanOrEqual(20 * big.length);
    expect(received).toBeLessThan(offered / 2);
    // The server goes on serving others.
    const other = await openMultipart(url.toString());
    other.abort();
    expect(other.status).toBe(200);
  });
});

describe("a server that shuts down", () => {
  it("ends its live views, so that it can drain", async () => {
    const own = await startTestServer();
    await own.importSkills("alice", [skillRecord("skill_watched", "Watched")]);
    const key = await own.keyFor("alice");
    const run = await own.repos.runs.create({
      owner: "alice",
      skill: { id: "skill_watched", name: "Watched" },
      inputs: {},
    });
    const reply = await call(own.origin, "GET", `/v1/run/${run.id}/live_url`, { key });
    const stream = await openMultipart(reply.body as string);
    expect(stream.status).toBe(200);
    await own.close();
    expect(await stream.ended).toEqual({ closingBoundary: true });
  });
});
