import { request } from "node:http";
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunSession } from "../src/domain/api-types.js";
import { startTestServer } from "../src/test-support/test-server.js";
import { call, skillRecord } from "./support/http.js";
import { VIDEO_BYTES } from "./support/videos.js";

/** An exchange with any Host header (fetch would not send a forged one). */
function rawGet(
  origin: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, origin), { headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

const FORGED = {
  host: "evil.example",
  "x-forwarded-host": "evil-forwarded.example",
  "x-forwarded-proto": "https",
};

/** A server with one owner, two runs (so the list has a next page) and a video for one. */
async function serverWithRuns(env: Record<string, string> = {}) {
  const server = await startTestServer({ env });
  const key = await server.keyFor("alice");
  await server.importSkills("alice", [skillRecord("skill_a", "A")]);
  const runs: RunSession[] = [];
  for (let i = 0; i < 2; i++) {
    runs.push(
      await server.repos.runs.create({
        owner: "alice",
        skill: { id: "skill_a", name: "A" },
        inputs: {},
      }),
    );
  }
  const run = runs[0] as RunSession;
  await server.putVideo(run.id, VIDEO_BYTES);
  return { server, key, run };
}

async function linksOf(
  origin: string,
  key: string,
  runId: string,
  headers: Record<string, string>,
) {
  const auth = { authorization: `Bearer ${key}` };
  const list = await rawGet(origin, "/v1/run/list?limit=1", { ...auth, ...headers });
  const videoUrl = await rawGet(origin, `/v1/run/${runId}/video_url`, { ...auth, ...headers });
  expect(list.status).toBe(200);
  expect(videoUrl.status).toBe(200);
  return { next: String(list.headers.link), videoUrl: JSON.parse(videoUrl.body) as string };
}

describe("absolute links never come from a client's Host header", () => {
  let setup: Awaited<ReturnType<typeof serverWithRuns>>;
  beforeAll(async () => {
    setup = await serverWithRuns();
  });
  afterAll(async () => {
    await setup?.server.close();
  });

  it("builds links on HOST and the bound port when PUBLIC_URL is unset", async () => {
    const { server, key, run } = setup;
    const links = await linksOf(server.origin, key, run.id, FORGED);
    expect(links.next).toMatch(new RegExp(`^<${server.origin}/v1/run/list\\?`));
    expect(links.videoUrl.startsWith(`${server.origin}/v1/run/${run.id}/video?`)).toBe(true);
    // The link works: it names this server.
    expect((await call(server.origin, "GET", links.videoUrl)).status).toBe(200);
  });
});

describe("TRUST_PROXY: forwarded scheme and host shape links only from trusted peers", () => {
  it("uses X-Forwarded-Proto and -Host from a trusted proxy (loopback)", async () => {
    const { server, key, run } = await serverWithRuns({ TRUST_PROXY: "loopback" });
    try {
      const links = await linksOf(server.origin, key, run.id, FORGED);
      expect(links.next).toMatch(/^<https:\/\/evil-forwarded\.example\/v1\/run\/list\?/);
      expect(links.videoUrl.startsWith("https://evil-forwarded.example/v1/run/")).toBe(true);
    } finally {
      await server.close();
    }
  });

  it("ignores them, and Host, when the peer is not a trusted proxy", async () => {
    const { server, key, run } = await serverWithRuns({ TRUST_PROXY: "10.0.0.0/8" });
    try {
      const links = await linksOf(server.origin, key, run.id, FORGED);
      expect(links.next).toMatch(new RegExp(`^<${server.origin}/v1/run/list\\?`));
      expect(links.videoUrl.startsWith(`${server.origin}/`)).toBe(true);
    } finally {
      await server.close();
    }
  });
});

describe("logs redact credentials wherever they appear", () => {
  it("keeps keys, cookies and video signatures out of the access and error logs", async () => {
    let log = "";
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        log += chunk.toString("utf8");
        done();
      },
    });
    const server = await startTestServer({ logger: pino({ level: "info" }, sink) });
    try {
      const key = await server.keyFor("alice");
      await server.importSkills("alice", [skillRecord("skill_a", "A")]);
      const run = await server.repos.runs.create({
        owner: "alice",
        skill: { id: "skill_a", name: "A" },
        inputs: {},
      });
      await server.putVideo(run.id, VIDEO_BYTES);
      const videoUrl = server.videoUrlFor(run.id);
      const signature = new URL(videoUrl).searchParams.get("signature") ?? "";
      expect(signature).toHaveLength(43);

      await call(server.origin, "GET", "/v1/skill/list", { key });
      await call(server.origin, "GET", `/v1/skill/list?api_key=${key}&Signature=sig-secret-1`);
      await call(server.origin, "GET", "/v1/skill/list", { headers: { "X-API-Key": key } });
      await call(server.origin, "GET", "/v1/skill/list", {
        headers: { cookie: `session=${key}; other=cookie-secret-2` },
      });
      expect((await call(server.origin, "GET", videoUrl)).status).toBe(200);
      expect((await call(server.origin, "GET", `${videoUrl}x`)).status).toBe(422);

      expect(log).toContain("/v1/skill/list");
      expect(log).toContain(`/v1/run/${run.id}/video`);
      for (const secret of [key, signature, "sig-secret-1", "cookie-secret-2"]) {
        expect(log).not.toContain(secret);
      }
      expect(log).toContain("api_key=[Redacted]");
      expect(log).toContain("signature=[Redacted]");
    } finally {
      await server.close();
    }
  });
});
