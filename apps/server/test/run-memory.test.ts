import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { DEFAULT_ENGINE_LIMITS } from "@skillrun/engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { RunClient, typesOf } from "./support/runs.js";

/**
 * RUN_MEMORY_MB bounds the resident memory of a run's process, not only its V8 heap: a response
 * body being read is held in buffers outside the heap, which `--max-old-space-size` never stops.
 */

const MEMORY_MB = 96;
const MB = 1024 * 1024;

// Sends up to 400 MB of a body in 1 MB chunks and then holds the connection open: the body stays
// within the response limit, and the read never ends, so only the memory watch can end the run
// before its time limit (the heap holds nothing but the list of chunks).
let hoard: Server;
let hoardUrl: string;

beforeAll(async () => {
  const chunk = Buffer.alloc(MB, 0x61);
  hoard = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/plain" });
    let sent = 0;
    const more = () => {
      while (sent < 400 && response.write(chunk)) sent += 1;
      if (sent < 400) response.once("drain", more);
    };
    more();
  });
  await new Promise<void>((resolve) => hoard.listen(0, "127.0.0.1", resolve));
  hoardUrl = `http://127.0.0.1:${(hoard.address() as AddressInfo).port}/`;
});

const HOARD = `
id: skill_hoard
name: Hoard
timeout: 60s
inputs:
  - { json_key: url, data_type: string }
steps:
  - set: { before: 1 }
  - id: fetch
    http: { url: "{{ inputs.url }}", timeout: 60s, save_as: vars.body }
`;

const GREET = `
id: skill_greet
name: Greet
steps:
  - set: { greeting: hello }
`;

let server: TestServer;
let alice: RunClient;

beforeAll(async () => {
  // One slot: the run after the hoard executes in the slot whose process was killed.
  server = await startTestServer({
    worker: {
      concurrency: 1,
      memoryMb: MEMORY_MB,
      limits: { ...DEFAULT_ENGINE_LIMITS, httpResponseBytes: 512 * MB },
    },
  });
  await server.importSkillYaml("alice", HOARD, GREET);
  alice = new RunClient(server.origin, await server.keyFor("alice"));
});

afterAll(async () => {
  await server?.close();
  hoard?.closeAllConnections();
  await new Promise((resolve) => hoard?.close(resolve));
});

describe("a run whose process holds more than RUN_MEMORY_MB outside its heap", () => {
  it("ends in reset naming the limit, its process killed, and the next run finishes", async () => {
    const { id } = await alice.start("skill_hoard", { url: hoardUrl });
    const ended = await alice.ended(id, 30_000);
    expect(ended.state).toBe("reset");
    expect(ended.data).toEqual({
      before: 1,
      error: { step: "fetch", message: `the run exceeded its memory limit of ${MEMORY_MB} MB` },
    });
    const events = await alice.events(id);
    expect(typesOf(events).at(-1)).toBe("run_failed");
    // The log says how much the process held when it was killed.
    const warning = events.find((e) => e.type === "log" && e.level === "warn");
    expect(warning?.message).toMatch(
      new RegExp(
        `^the run's process held [\\d.]+ MB of memory, over RUN_MEMORY_MB \\(${MEMORY_MB} MB\\); it was killed$`,
      ),
    );
    // Nothing of the body was written anywhere: the run has no files.
    expect(await server.repos.runFiles.list("alice", id)).toEqual([]);

    const next = await alice.ended((await alice.start("skill_greet")).id);
    expect(next).toMatchObject({ state: "finish", data: { greeting: "hello" } });
  });
});
