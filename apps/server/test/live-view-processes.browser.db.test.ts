import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  startTestServer,
  TEST_VIDEO_SECRET,
  type TestServer,
} from "../src/test-support/test-server.js";
import { call } from "./support/http.js";
import { isJpeg, openMultipart } from "./support/multipart.js";
import { RunClient } from "./support/runs.js";
import {
  type SkillrunProcess,
  startServerProcess,
  startWorkerProcess,
} from "./support/skillrun-process.js";

/**
 * The live view across processes (docs/decisions/0057-live-view-through-the-database.md): the
 * run executes in a `skillrun worker`, the viewer asks a `skillrun serve` that runs no worker, and
 * the two share nothing but the database.
 */

const ANIMATED = `
id: skill_animated
name: Animated
inputs:
  - { json_key: shop_url, data_type: string }
steps:
  - goto: "{{ inputs.shop_url }}"
  - evaluate: "(setInterval(() => { document.body.style.background = 'hsl(' + Math.floor(Date.now() / 20 % 360) + ', 80%, 60%)'; }, 50), 1)"
  - id: watched
    wait: 60s
`;

let server: TestServer;
let worker: SkillrunProcess;
let api: SkillrunProcess;
let alice: RunClient;
let dir: string;

beforeAll(async () => {
  // The database, the skills, the keys and the demo page; no worker of its own.
  server = await startTestServer();
  await server.importSkillYaml("alice", ANIMATED);
  dir = mkdtempSync(join(tmpdir(), "skillrun-live-"));
  const shared = { VIDEO_SIGNING_SECRET: TEST_VIDEO_SECRET, ALLOW_PRIVATE_NETWORKS: "true" };
  worker = await startWorkerProcess(server.databaseUrl, {
    ...shared,
    WORKER_CONCURRENCY: "1",
    VIDEO_DIR: join(dir, "worker"),
  });
  api = await startServerProcess(server.databaseUrl, {
    ...shared,
    WORKER_CONCURRENCY: "0",
    VIDEO_DIR: join(dir, "api"),
  });
  alice = new RunClient(api.id, await server.keyFor("alice"));
}, 60_000);

afterAll(async () => {
  await api?.stop("SIGKILL");
  await worker?.stop("SIGKILL");
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a run executed by a worker process", () => {
  it("is watched through a server process that shares only the database", async () => {
    const { id } = await alice.start("skill_animated", { shop_url: `${server.origin}/demo/` });
    await expect
      .poll(
        async () =>
          (await alice.events(id)).filter((event) => event.type === "step_finished").length,
        { timeout: 60_000, interval: 100 },
      )
      .toBeGreaterThanOrEqual(2);
    const reply = await call(api.id, "GET", `/v1/run/${id}/live_url`, { key: alice.key });
    expect(reply.status, reply.text).toBe(200);
    const url = reply.body as string;
    expect(url.startsWith(`${api.id}/v1/run/${id}/live?`)).toBe(true);
    const stream = await openMultipart(url);
    expect(stream.status).toBe(200);
    const parts = await stream.until(3, 30_000);
    for (const part of parts) expect(isJpeg(part.body)).toBe(true);
    expect(await alice.cancel(id)).toBe("cancel");
    expect(await stream.ended).toEqual({ closingBoundary: true });
  });
});
