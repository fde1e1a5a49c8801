import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LIVE_VIEW_OPTIONS } from "../src/http/live-feeds.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call } from "./support/http.js";
import { isJpeg, openMultipart } from "./support/multipart.js";
import { RunClient, typesOf } from "./support/runs.js";

/**
 * The live view of a browser run in real Chromium (docs/decisions/0057-live-view-through-the-
 * database.md): the run's process sends its screencast's frames only while somebody watches, its
 * worker writes them to the database, the API streams them as JPEG parts; a parked run shows its
 * last frame; an ended run has no live view.
 */

// A page that changes all the time (so the screencast keeps sending), watched in its slot, then
// a long wait that parks the run.
const LIVE = `
id: skill_live
name: Live
inputs:
  - { json_key: shop_url, data_type: string }
steps:
  - goto: "{{ inputs.shop_url }}"
  - evaluate: "(setInterval(() => { document.body.style.background = 'hsl(' + Math.floor(Date.now() / 20 % 360) + ', 80%, 60%)'; }, 50), 1)"
  - id: watched
    wait: 8s
  - id: parked
    wait: 5m
`;

let server: TestServer;
let alice: RunClient;

beforeAll(async () => {
  // A wait longer than 10 s parks its run at once.
  server = await startTestServer({
    worker: { concurrency: 1 },
    env: { PARK_AFTER_SECONDS: "10" },
    // A watch lapses a second after its stream closed, well before the run parks.
    override: (deps) => ({
      ...deps,
      config: {
        ...deps.config,
        liveView: { ...DEFAULT_LIVE_VIEW_OPTIONS, watchForMs: 1_000, renewEveryMs: 300 },
      },
    }),
  });
  await server.importSkillYaml("alice", LIVE);
  alice = new RunClient(server.origin, await server.keyFor("alice"));
});

afterAll(() => server?.close());

async function liveUrl(runId: string): Promise<string> {
  const reply = await call(server.origin, "GET", `/v1/run/${runId}/live_url`, { key: alice.key });
  expect(reply.status, reply.text).toBe(200);
  return reply.body as string;
}

describe("the live view of a browser run", () => {
  it("streams JPEGs of its page while watched, its last one once parked, and nothing once ended", async () => {
    const { id } = await alice.start("skill_live", { shop_url: `${server.origin}/demo/` });
    // In its watched wait: the page is open and changing.
    await expect
      .poll(
        async () =>
          (await alice.events(id)).filter((event) => event.type === "step_finished").length,
        { timeout: 60_000, interval: 100 },
      )
      .toBeGreaterThanOrEqual(2);
    // Nobody watched yet: the worker wrote no frame.
    expect(await server.db.prisma.runLiveView.findUnique({ where: { runId: id } })).toBeNull();

    const stream = await openMultipart(await liveUrl(id));
    expect(stream.status).toBe(200);
    expect(stream.headers["content-type"]).toBe(
      "multipart/x-mixed-replace; boundary=skillrun-frame",
    );
    const parts = await stream.until(3, 30_000);
    stream.abort();
    for (const part of parts) {
      expect(part.headers["content-type"]).toBe("image/jpeg");
      expect(Number(part.headers["content-length"])).toBe(part.body.length);
      expect(isJpeg(part.body)).toBe(true);
    }
    // The page changes: so do the frames.
    expect(new Set(parts.map((part) => part.body.toString("base64"))).size).toBeGreaterThan(1);

    // Nobody watches any more: however the page changes, no frame is written.
    const view = () => server.db.prisma.runLiveView.findUnique({ where: { runId: id } });
    await expect
      // The watch lapses watchForMs (1 s) after the last renewal, past expect.poll's default 1 s.
      .poll(async () => ((await view())?.watchEndsAt?.getTime() ?? 0) < Date.now() - 300, {
        timeout: 10_000,
      })
      .toBe(true);
    const unwatched = (await view())?.frameSeq;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await view())?.frameSeq).toBe(unwatched);

    // Parked (its browser closed, no worker): the live view shows the last frame, which the run
    // sent as it was parked.
    await expect
      .poll(async () => typesOf(await alice.events(id)), { timeout: 60_000, interval: 200 })
      .toContain("run_parked");
    const parkedAt = (await alice.events(id)).find((event) => event.type === "run_parked")?.at;
    await expect
      .poll(async () => (await view())?.frameAt?.getTime() ?? 0, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(Date.parse(parkedAt as string));
    const parked = await openMultipart(await liveUrl(id));
    expect(parked.status).toBe(200);
    const [last] = await parked.until(1, 10_000);
    expect(isJpeg(last?.body ?? Buffer.alloc(0))).toBe(true);

    // Ended: the open stream ends, and the live view is a 409.
    const url = await liveUrl(id);
    expect(await alice.cancel(id)).toBe("cancel");
    expect(await parked.ended).toEqual({ closingBoundary: true });
    const ended = await call(server.origin, "GET", `/v1/run/${id}/live_url`, { key: alice.key });
    expect(ended.status).toBe(409);
    expect(ended.body).toEqual({ detail: "Run has ended" });
    const stale = await call(server.origin, "GET", url);
    expect(stale.status).toBe(409);
    expect(stale.body).toEqual({ detail: "Run has ended" });
  });
});
