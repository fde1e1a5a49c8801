import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { isTaggedBrowser, listProcesses } from "@skillrun/engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { FixtureApi } from "./support/fixture-api.js";
import { call } from "./support/http.js";
import { RunClient, typesOf } from "./support/runs.js";

/**
 * The confinement of runs' browsers through the API and the in-process worker, in real Chromium:
 * as whom it runs, and the memory watchdog that ends a run whose page takes too much.
 */

// Takes 1 GB in 32 MB steps, each written to so that it is resident, then says it is done.
const HOG_PAGE = `<!doctype html><title>Hog</title><h1>Taking memory</h1>
<script>
  const kept = [];
  const grow = () => {
    if (kept.length === 32) {
      const done = document.createElement("p");
      done.id = "done";
      document.body.append(done);
      return;
    }
    kept.push(new Uint8Array(32 * 1024 * 1024).fill(1));
    setTimeout(grow, 50);
  };
  grow();
</script>`;

const HOG = `
id: skill_hog
name: Hog
inputs:
  - { json_key: page_url, data_type: string }
steps:
  - goto: "{{ inputs.page_url }}"
  - id: fill_memory
    wait_for: { selector: "#done" }
    timeout: 30s
`;

const LOOK = `
id: skill_look
name: Look
inputs:
  - { json_key: page_url, data_type: string }
steps:
  - goto: "{{ inputs.page_url }}"
  - screenshot: { save_as: picture }
  - id: nap
    wait: 1s
`;

let server: TestServer;
let alice: RunClient;
let pages: FixtureApi;

beforeAll(async () => {
  server = await startTestServer({ worker: { concurrency: 2 }, browserMemoryMb: 800 });
  await server.importSkillYaml("alice", HOG, LOOK);
  alice = new RunClient(server.origin, await server.keyFor("alice"));
  pages = await FixtureApi.start();
  pages.on("GET", "/hog", () => ({ status: 200, text: HOG_PAGE, type: "text/html" }));
  pages.on("GET", "/static", () => ({
    status: 200,
    text: "<!doctype html><title>Static</title><h1>Nothing moves here</h1>",
    type: "text/html",
  }));
});

afterAll(async () => {
  await server?.close();
  await pages?.close();
});

describe("a run's browser", () => {
  it("runs as CHROMIUM_USER (nobody) when the server runs as root, and still records", async () => {
    const sessions = watchSessions();
    try {
      const { id } = await alice.start("skill_look", { page_url: `${pages.origin}/static` });
      sessions.follow(id);
      const uids = new Set<number>();
      const sampler = setInterval(() => {
        for (const uid of uidsOf(id)) uids.add(uid);
      }, 50);
      const run = await alice.ended(id, 30_000).finally(() => clearInterval(sampler));
      expect(run.state, JSON.stringify(run.data)).toBe("finish");
      expect(run.data).toMatchObject({ picture: { file: expect.stringMatching(/\.png$/) } });
      expect(typesOf(await alice.events(id))).toContain("video_recorded");
      const expected =
        process.getuid?.() === 0
          ? Number(execFileSync("id", ["-u", "nobody"], { encoding: "utf8" }))
          : process.getuid?.();
      expect([...uids]).toEqual([expected]);
      expect(sessions.left(id)).toBe(0);
    } finally {
      sessions.stop();
    }
  }, 60_000);

  it("ends in reset when its page takes more memory than BROWSER_MEMORY_MB, and nothing is left", async () => {
    const sessions = watchSessions();
    try {
      const { id } = await alice.start("skill_hog", { page_url: `${pages.origin}/hog` });
      sessions.follow(id);
      const run = await alice.ended(id, 30_000);
      expect(run.state).toBe("reset");
      const { error } = run.data as { error: { step: string; message: string } };
      expect(error.step).toBe("fill_memory");
      expect(error.message).toMatch(
        /^the browser used (\d+ MB|\d+\.\d GB), over its limit of 800 MB$/,
      );
      const events = await alice.events(id);
      expect(events.at(-1)).toMatchObject({
        type: "run_failed",
        message: `fill_memory: ${error.message}`,
      });
      expect(sessions.seen(id)).toBeGreaterThan(0);
      expect(sessions.left(id)).toBe(0);

      // The service lives on: it answers, and the next browser run works.
      expect((await call(server.origin, "GET", "/healthz")).status).toBe(200);
      const next = await alice.start("skill_look", { page_url: `${pages.origin}/static` });
      expect((await alice.ended(next.id, 30_000)).state).toBe("finish");
    } finally {
      sessions.stop();
    }
  }, 90_000);
});

/**
 * The real user ids of the run's Chromium processes. The root wrapper that starts Chromium as its
 * user is left out: first the shell script (`chromium-as-user`), then, once it has executed
 * nice and nice setpriv, each of them, which carry Chromium's arguments (the tag too) and are root
 * for the moment before setpriv switches user and executes Chromium.
 */
function uidsOf(runId: string): number[] {
  return listProcesses()
    .filter((entry) => isTaggedBrowser(entry, runId) && !isWrapper(entry.cmdline))
    .flatMap((entry) => {
      try {
        const status = readFileSync(`/proc/${entry.pid}/status`, "utf8");
        return [Number(/^Uid:\s+(\d+)/m.exec(status)?.[1])];
      } catch {
        return [];
      }
    });
}

function isWrapper(cmdline: string): boolean {
  const program = cmdline.split("\0")[0] ?? "";
  return cmdline.includes("chromium-as-user") || ["nice", "setpriv"].includes(basename(program));
}

/**
 * Follows runs' browsers: the sessions of the processes tagged with a run id, sampled while it
 * runs, since renderers carry no tag of their own but stay in their browser's session.
 */
function watchSessions() {
  const sessions = new Map<string, Set<number>>();
  const sample = () => {
    const all = listProcesses();
    for (const [runId, sids] of sessions) {
      for (const entry of all) if (isTaggedBrowser(entry, runId)) sids.add(entry.sid);
    }
  };
  const timer = setInterval(sample, 50);
  return {
    follow(runId: string) {
      if (!sessions.has(runId)) sessions.set(runId, new Set());
    },
    /** How many sessions of the run's browser were seen. */
    seen(runId: string): number {
      return sessions.get(runId)?.size ?? 0;
    },
    /** How many of the run's processes are alive now, tagged or in a session seen. */
    left(runId: string): number {
      sample();
      const sids = sessions.get(runId) ?? new Set();
      return listProcesses().filter((entry) => isTaggedBrowser(entry, runId) || sids.has(entry.sid))
        .length;
    },
    stop() {
      clearInterval(timer);
    },
  };
}
