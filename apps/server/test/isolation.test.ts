import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call } from "./support/http.js";
import { RunClient, typesOf } from "./support/runs.js";

/**
 * Runs execute in processes of their own: a run that never yields or eats memory cannot stall
 * the HTTP server, is ended at its time limit, and ends in reset when it outgrows its heap.
 */

// Backtracks 2^28 times on 28 "a" and a "!": about 16 s of one regex that never yields.
const CATASTROPHIC = `
id: skill_catastrophic
name: Catastrophic regex
timeout: 2s
inputs:
  - { json_key: s, data_type: string }
steps:
  - id: match
    set: { matched: "{{ $contains(inputs.s, /^(a+)+$/) }}" }
`;

// One string of 200 million characters: far past a 64 MB heap in one allocation.
const MEMORY_HOG = `
id: skill_memory_hog
name: Memory hog
steps:
  - set: { before: 1 }
  - id: hog
    set: { size: "{{ $length($pad('', 200000000, 'x')) }}" }
`;

const GREET = `
id: skill_greet
name: Greet
steps:
  - set: { greeting: hello }
`;

const EVIL_INPUT = `${"a".repeat(28)}!`;
const MEMORY_MB = 64;

let server: TestServer;
let alice: RunClient;

beforeAll(async () => {
  // One slot: the run after the memory hog executes in the slot the hog's process died in.
  server = await startTestServer({ worker: { concurrency: 1, memoryMb: MEMORY_MB } });
  await server.importSkillYaml("alice", CATASTROPHIC, MEMORY_HOG, GREET);
  alice = new RunClient(server.origin, await server.keyFor("alice"));
});

afterAll(async () => {
  await server?.close();
});

describe("a run that never yields (catastrophic regex)", () => {
  it("leaves the server answering while it runs, and ends in timeout within a second of its limit", async () => {
    const { id } = await alice.start("skill_catastrophic", { s: EVIL_INPUT });
    // Wait until the regex step is under way: from then on the run's thread is busy for 16 s.
    const deadline = Date.now() + 20_000;
    while (!(await alice.events(id)).some((e) => e.type === "step_started")) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const health = await call(server.origin, "GET", "/healthz", {});
    expect(health.status).toBe(200);
    // Had the regex run on the server's thread, these would answer only after the run ended.
    expect((await alice.get(id)).state).toBe("play");

    const ended = await alice.ended(id);
    expect(ended.state).toBe("timeout");
    expect(ended.data).toMatchObject({
      error: { step: "match", message: "the run exceeded its time limit of 2s" },
    });
    const events = await alice.events(id);
    const claimed = events.find((e) => e.type === "run_claimed");
    const limit = Date.parse(claimed?.at as string) + 2000;
    const endTime = Date.parse(ended.end_time as string);
    expect(endTime).toBeGreaterThanOrEqual(limit);
    expect(endTime).toBeLessThanOrEqual(limit + 1000);
    expect(typesOf(events).at(-1)).toBe("run_timed_out");
  });
});

describe("a run past its memory limit", () => {
  it("ends in reset with the memory error, and the next run on the same worker finishes", async () => {
    const { id } = await alice.start("skill_memory_hog");
    const ended = await alice.ended(id);
    expect(ended.state).toBe("reset");
    expect(ended.data).toEqual({
      before: 1,
      error: { step: "hog", message: `the run exceeded its memory limit of ${MEMORY_MB} MB` },
    });
    expect(typesOf(await alice.events(id)).at(-1)).toBe("run_failed");

    const next = await alice.ended((await alice.start("skill_greet")).id);
    expect(next).toMatchObject({ state: "finish", data: { greeting: "hello" } });
  });
});
