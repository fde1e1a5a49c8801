import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { RunClient } from "./support/runs.js";

// Text PostgreSQL's text cannot hold (a NUL) or UTF-8 cannot encode (half a surrogate pair) can
// reach a run from any page, response or input. Whatever it logs, saves or fails with, the run
// ends with its real outcome and its log on either database: in text columns such characters are
// stored as U+FFFD, in data (JSON) exactly.

let server: TestServer;
let site: Server;
let base = "";
let alice: RunClient;
const NOTE = "n\u0000o\ud800te";

beforeAll(async () => {
  site = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/plain" });
    response.end(Buffer.from("a\u0000b", "utf8"));
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  server = await startTestServer({ worker: { concurrency: 1 } });
  alice = new RunClient(server.origin, await server.keyFor("alice"));
  await server.importSkillYaml(
    "alice",
    `id: odd_text
name: Odd text
inputs:
  - { json_key: url, data_type: string }
  - { json_key: note, data_type: string }
steps:
  - id: got
    http: { method: POST, url: "{{ inputs.url }}", body: "{{ inputs.note }}" }
  - log: "body: {{ steps.got.body }}"
  - log: "note: {{ inputs.note }}"
  - set: { body: "{{ steps.got.body }}", note: "{{ inputs.note }}" }
  - fail: "failing with {{ inputs.note }}"
`,
  );
});

afterAll(async () => {
  await server?.close();
  site?.close();
});

describe("a NUL and a lone surrogate through http bodies, inputs, log, set and fail", () => {
  it("end the run in reset with its own message and keep its whole log", async () => {
    const run = await alice.start("odd_text", { url: base, note: NOTE });
    const ended = await alice.ended(run.id);
    expect(ended.state).toBe("reset");
    expect(ended.data).toEqual({
      body: "a\u0000b",
      note: NOTE,
      error: { step: "step 5 (fail)", message: `failing with ${NOTE}` },
    });
    const events = await alice.events(run.id);
    const messages = events.map((event) => event.message ?? "");
    expect(messages).toContain("body: a\uFFFDb");
    expect(messages).toContain("note: n\uFFFDo\uFFFDte");
    expect(events.at(-1)?.type).toBe("run_failed");
    // Exactly once: the POST was not repeated by a recovery.
    expect(events.filter((event) => event.type === "run_claimed")).toHaveLength(1);
  });
});
