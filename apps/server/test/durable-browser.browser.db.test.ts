import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunEvent, RunSession } from "../src/domain/api-types.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call } from "./support/http.js";
import { RunClient, typesOf } from "./support/runs.js";
import { type SkillrunProcess, startWorkerProcess } from "./support/skillrun-process.js";

/**
 * Browser runs that go on from a checkpoint in a new browser, in real Chromium against a page the
 * test serves: a note typed into a form lives in the page's localStorage, and the page shows what
 * its storage holds. Parked and restarted, or rerun, the run finds the note where it left it.
 */

const PAGE = `<!doctype html><title>Note</title>
<input id="note"><p id="stored"></p><button id="send">Send</button>
<script>
const note = document.getElementById("note");
const show = () => {
  document.getElementById("stored").textContent = localStorage.getItem("note") ?? "nothing";
};
note.addEventListener("input", () => {
  localStorage.setItem("note", note.value);
  show();
});
document.getElementById("send").addEventListener("click", () => fetch("/send", { method: "POST" }));
show();
</script>`;

const REMEMBER = `
id: remember
name: Note, ask, read back
inputs:
  - { json_key: base, data_type: string }
  - { json_key: expected, data_type: string, required: false, default: kept across browsers }
steps:
  - goto: "{{ inputs.base }}/form"
  - fill: { selector: "#note", value: kept across browsers }
  - id: send
    click: { selector: "#send" }
  - id: approve
    ask: { prompt: "Go on?" }
  - id: check
    timeout: 5s
    assert_text: { selector: "#stored", text: "{{ inputs.expected }}" }
  - id: stored
    extract: { selector: "#stored" }
  - set: { stored: "{{ steps.stored }}", answer: "{{ steps.approve }}" }
`;

let site: Server;
let base: string;
const hits = new Map<string, number>();
let server: TestServer;
let client: RunClient;
const processes: SkillrunProcess[] = [];

beforeAll(async () => {
  site = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://site").pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path === "/form") response.writeHead(200, { "content-type": "text/html" }).end(PAGE);
    else response.writeHead(204).end();
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => site.close(() => resolve())));

beforeEach(async () => {
  hits.clear();
  server = await startTestServer();
  await server.importSkillYaml("alice", REMEMBER);
  client = new RunClient(server.origin, await server.keyFor("alice"));
});

afterEach(async () => {
  await Promise.all(processes.splice(0).map((started) => started.stop("SIGKILL")));
  await server?.close();
});

async function worker(): Promise<SkillrunProcess> {
  const started = await startWorkerProcess(server.databaseUrl, {
    WORKER_CONCURRENCY: "1",
    SHUTDOWN_GRACE_SECONDS: "60",
    PARK_AFTER_SECONDS: "60",
    ALLOW_PRIVATE_NETWORKS: "true",
    VIDEO_DIR: server.fileStore.dir,
  });
  processes.push(started);
  return started;
}

async function until(runId: string, type: RunEvent["type"]): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!typesOf(await client.events(runId)).includes(type)) {
    if (Date.now() > deadline) throw new Error(`run ${runId} has no ${type} event`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const answer = (runId: string, input: unknown) =>
  call(server.origin, "POST", `/v1/run/${runId}/resume`, { key: client.key, json: { input } });

describe("a browser run waiting for an answer", { timeout: 120_000 }, () => {
  it("is parked by a worker that stops, and goes on after the restart with the page's storage", async () => {
    const first = await worker();
    const { id } = await client.start("remember", { base });
    await until(id, "run_paused");
    first.signal("SIGTERM");
    expect(await first.exited).toBe(0);
    expect(typesOf(await client.events(id))).toContain("run_parked");

    await worker();
    expect((await answer(id, "yes")).status).toBe(200);
    const run = await client.ended(id, 60_000);
    expect(run.state, JSON.stringify(run.data)).toBe("finish");
    // The page was loaded again in a new browser and read the note back from its storage.
    expect(run.data).toEqual({ stored: "kept across browsers", answer: "yes" });
    expect(hits.get("/form")).toBe(2);
    // The click before the ask was not made again.
    expect(hits.get("/send")).toBe(1);
  });
});

describe("a rerun of a browser run", { timeout: 120_000 }, () => {
  it("starts at the failed step in a browser restored from its checkpoint", async () => {
    await worker();
    const { id } = await client.start("remember", { base, expected: "something else" });
    await until(id, "run_paused");
    expect((await answer(id, "first")).status).toBe(200);
    const failed = await client.ended(id, 60_000);
    expect(failed.state).toBe("reset");
    expect(failed.data).toMatchObject({ error: { step: "check" } });

    const reply = await call(server.origin, "POST", `/v1/run/${id}/rerun`, {
      key: client.key,
      json: { inputs: { base } },
    });
    expect(reply.status, reply.text).toBe(201);
    const rerun = await client.ended((reply.body as RunSession).id, 60_000);
    expect(rerun.state, JSON.stringify(rerun.data)).toBe("finish");
    // The answer comes from the original's checkpoint; the note from the restored storage.
    expect(rerun.data).toEqual({ stored: "kept across browsers", answer: "first" });
    expect(hits.get("/send")).toBe(1);
    expect(hits.get("/form")).toBe(2);
  });
});
