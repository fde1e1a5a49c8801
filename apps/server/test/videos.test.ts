import { rmSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunSession } from "../src/domain/api-types.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { type CallOptions, call, type Reply, skillRecord } from "./support/http.js";
import { tampered, VIDEO_BYTES, withQuery } from "./support/videos.js";

/**
 * Run videos (docs/decisions/0032-run-files-behind-signed-addresses.md): the store, the signed,
 * expiring addresses of `video_url`, and serving the video to a browser without an API key.
 */

const START = Date.parse("2026-11-22T10:00:00.250Z");
const TTL_SECONDS = 3600;
let now = START;
const clock = { now: () => new Date(now) };

let server: TestServer;
let alice: string;
const SKILL = "skill_recorded";

beforeAll(async () => {
  server = await startTestServer({ clock });
  alice = await server.keyFor("alice");
  await server.importSkills("alice", [skillRecord(SKILL, "Recorded")]);
});

afterAll(async () => {
  await server?.close();
});

beforeEach(() => {
  now = START;
});

function get(url: string, options: CallOptions = { key: alice }): Promise<Reply> {
  return call(server.origin, "GET", url, options);
}

async function startRun(): Promise<RunSession> {
  const reply = await call(server.origin, "POST", "/v1/run/", {
    key: alice,
    json: { skill_id: SKILL },
  });
  expect(reply.status, reply.text).toBe(200);
  return reply.body as RunSession;
}

/** A run of alice's whose video is VIDEO_BYTES. */
async function recordedRun(): Promise<string> {
  const run = await startRun();
  await server.putVideo(run.id, VIDEO_BYTES);
  return run.id;
}

async function videoUrl(runId: string): Promise<string> {
  const reply = await get(`/v1/run/${runId}/video_url`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body as string;
}

/** GET of a video address as a browser's video element sends it: no Authorization header. */
function openVideo(url: string, headers: Record<string, string> = {}): Promise<Reply> {
  return call(server.origin, "GET", url, { headers });
}

function signatureOf(url: string): string {
  return new URL(url).searchParams.get("signature") as string;
}

function listed(reply: Reply, runId: string): RunSession | undefined {
  expect(reply.status, reply.text).toBe(200);
  return (reply.body as RunSession[]).find((r) => r.id === runId);
}

describe("video addresses", () => {
  it("reports no video while the run's file does not exist: video_url 404, RunSession.video_url null", async () => {
    const run = await startRun();
    expect(run.video_url).toBeNull();
    expect(((await get(`/v1/run/${run.id}`)).body as RunSession).video_url).toBeNull();
    expect(listed(await get("/v1/run/list"), run.id)?.video_url).toBeNull();
    const reply = await get(`/v1/run/${run.id}/video_url`);
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ detail: "Run has no video" });
  });

  it("gives an absolute signed address once the file exists, valid for VIDEO_URL_TTL_SECONDS", async () => {
    const runId = await recordedRun();
    const url = await videoUrl(runId);
    const expires = Math.floor(START / 1000) + TTL_SECONDS;
    expect(url).toMatch(
      new RegExp(
        `^${server.origin}/v1/run/${runId}/video\\?expires=${expires}&signature=[\\w-]{43}$`,
      ),
    );
  });

  it("fills RunSession.video_url in get and list once the file exists, with working addresses", async () => {
    const runId = await recordedRun();
    const fromGet = ((await get(`/v1/run/${runId}`)).body as RunSession).video_url;
    const fromList = listed(await get("/v1/run/list"), runId)?.video_url;
    for (const url of [fromGet, fromList]) {
      expect(url).toMatch(new RegExp(`^${server.origin}/v1/run/${runId}/video\\?`));
      const reply = await openVideo(url as string);
      expect(reply.status).toBe(200);
      expect(reply.bytes).toEqual(VIDEO_BYTES);
    }
  });

  it("builds addresses on PUBLIC_URL when it is set", async () => {
    const behindProxy = await startTestServer({
      override: (deps) => ({
        ...deps,
        config: { ...deps.config, publicUrl: "https://skillrun.example.com/api/" },
      }),
    });
    try {
      const key = await behindProxy.keyFor("alice");
      await behindProxy.importSkills("alice", [skillRecord(SKILL, "Recorded")]);
      const run = await behindProxy.repos.runs.create({
        owner: "alice",
        skill: { id: SKILL, name: "Recorded" },
        inputs: {},
      });
      await behindProxy.putVideo(run.id, VIDEO_BYTES);
      const reply = await call(behindProxy.origin, "GET", `/v1/run/${run.id}/video_url`, { key });
      expect(reply.body).toMatch(
        new RegExp(`^https://skillrun\\.example\\.com/api/v1/run/${run.id}/video\\?expires=`),
      );
    } finally {
      await behindProxy.close();
    }
  });
});

describe("serving a video at its signed address", () => {
  it("serves the exact bytes as video/webm without an API key", async () => {
    const reply = await openVideo(await videoUrl(await recordedRun()));
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("video/webm");
    expect(reply.headers.get("accept-ranges")).toBe("bytes");
    expect(reply.bytes).toEqual(VIDEO_BYTES);
  });

  it("serves a byte range, so players can seek: bytes=0-9 is a 206 with 10 bytes", async () => {
    const reply = await openVideo(await videoUrl(await recordedRun()), { range: "bytes=0-9" });
    expect(reply.status).toBe(206);
    expect(reply.headers.get("content-type")).toBe("video/webm");
    expect(reply.headers.get("content-range")).toBe(`bytes 0-9/${VIDEO_BYTES.length}`);
    expect(reply.bytes).toEqual(VIDEO_BYTES.slice(0, 10));
  });

  it("answers a range past the end with 416, the size in Content-Range and a JSON detail", async () => {
    const reply = await openVideo(await videoUrl(await recordedRun()), { range: "bytes=5000-" });
    expect(reply.status).toBe(416);
    expect(reply.headers.get("content-range")).toBe(`bytes */${VIDEO_BYTES.length}`);
    expect(reply.body).toEqual({ detail: "Range Not Satisfiable" });
  });

  it("refuses a tampered signature with 403", async () => {
    const url = await videoUrl(await recordedRun());
    const reply = await openVideo(withQuery(url, { signature: tampered(signatureOf(url)) }));
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({ detail: "Invalid video signature" });
  });

  it("refuses an address whose expiry was moved later with 403", async () => {
    const url = await videoUrl(await recordedRun());
    const later = String(Number(new URL(url).searchParams.get("expires")) + 86_400);
    const reply = await openVideo(withQuery(url, { expires: later }));
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({ detail: "Invalid video signature" });
  });

  it("serves an address until it expires and refuses it with 403 from then on", async () => {
    const url = await videoUrl(await recordedRun());
    now = START + (TTL_SECONDS - 1) * 1000;
    expect((await openVideo(url)).status).toBe(200);
    now = START + TTL_SECONDS * 1000;
    const reply = await openVideo(url);
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({ detail: "Video link expired" });
  });

  it("refuses another run's signature on this run with 403", async () => {
    const runId = await recordedRun();
    const other = new URL(await videoUrl(await recordedRun()));
    const reply = await openVideo(`/v1/run/${runId}/video${other.search}`);
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({ detail: "Invalid video signature" });
  });

  it("refuses an address signed with another server's secret with 403", async () => {
    const runId = await recordedRun();
    const stranger = await startTestServer({
      videoSigningSecret: "another-servers-video-signing-secret-000000",
      clock,
    });
    try {
      const foreign = new URL(stranger.videoUrlFor(runId));
      const reply = await openVideo(`${foreign.pathname}${foreign.search}`);
      expect(reply.status).toBe(403);
      expect(reply.body).toEqual({ detail: "Invalid video signature" });
    } finally {
      await stranger.close();
    }
  });

  it("answers 404 once the video is deleted, and the run reports no video any more", async () => {
    const runId = await recordedRun();
    const url = await videoUrl(runId);
    rmSync(server.fileStore.find(runId) as string);
    const reply = await openVideo(url);
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ detail: "Run has no video" });
    expect((await get(`/v1/run/${runId}/video_url`)).status).toBe(404);
    expect(((await get(`/v1/run/${runId}`)).body as RunSession).video_url).toBeNull();
  });
});
