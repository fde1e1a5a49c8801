import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent } from "../src/domain/api-types.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call } from "./support/http.js";
import { RunClient } from "./support/runs.js";

/**
 * Step detail and failure screenshots through the API (docs/decisions/0059-step-detail.md): a
 * browser run against the server's demo shop, on each database, whose steps make a 1 MB value,
 * a value with a secret inside and a 10 KB selector that matches nothing. The step log says what
 * each step acted on, bounded and masked; the failed click's page is a run file its event names.
 */

const SECRET = "tok-81f3-very-SECRET-value";
const LONG_SELECTOR = `#${"x".repeat(10 * 1024)}`;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const DETAILED = `
id: skill_detailed
name: Detailed
inputs:
  - { json_key: shop_url, data_type: string }
steps:
  - goto: "{{ inputs.shop_url }}"
  - id: big
    set: { blob: "{{ $pad('', 500000, 'x') }}" }
  - id: scratch
    let: { blob: "{{ $pad('', 1048576, 'x') }}" }
  - id: token
    set: { header: "{{ $pad('', 110, 'a') }}{{ secrets.api_token }} end" }
  - id: checkout
    timeout: 1s
    click: { selector: "${LONG_SELECTOR}" }
`;

let server: TestServer;
let alice: RunClient;
let shopUrl: string;

beforeAll(async () => {
  server = await startTestServer({ worker: { concurrency: 1 } });
  await server.importSkillYaml("alice", DETAILED);
  await server.repos.secrets.put("alice", "api_token", SECRET);
  alice = new RunClient(server.origin, await server.keyFor("alice"));
  shopUrl = `${server.origin}/demo/`;
});

afterAll(async () => {
  await server?.close();
});

function ofStep(events: RunEvent[], id: string, type: RunEvent["type"]): RunEvent | undefined {
  return events.find((event) => event.type === type && event.step?.id === id);
}

describe("the step log of a browser run", () => {
  it("says what each step did, bounded and masked, and the failed click's screenshot is a run file its event names", async () => {
    const { id } = await alice.start("skill_detailed", { shop_url: shopUrl });
    const run = await alice.ended(id, 60_000);
    expect(run.state).toBe("reset");
    const events = await alice.events(id);
    expect(JSON.stringify(events)).not.toContain(SECRET);

    const opened = events.find((event) => event.type === "step_finished");
    expect(opened).toMatchObject({ step: { kind: "goto" }, detail: `${shopUrl} → 200` });
    expect(ofStep(events, "big", "step_finished")?.detail).toMatch(/^blob = "x{100,}…$/);
    expect(ofStep(events, "big", "step_finished")?.detail?.length).toBeLessThanOrEqual(200);
    // A variable's value is never shown: its name only.
    expect(ofStep(events, "scratch", "step_finished")?.detail).toBe("vars.blob");
    // The secret sits across the preview's bound: masked whole before the cut, none of it shows.
    expect(ofStep(events, "token", "step_finished")?.detail).toBe(
      `header = "${"a".repeat(110)}*** end"`,
    );

    const failed = ofStep(events, "checkout", "step_failed");
    expect(failed).toMatchObject({ file: "failed-checkout.png" });
    expect(failed?.detail).toHaveLength(200);
    expect(failed?.detail).toMatch(/^"#x+…$/);
    // Events that say none have null.
    expect(events.find((event) => event.type === "step_started")).toMatchObject({
      detail: null,
      file: null,
    });

    const files = await call(server.origin, "GET", `/v1/run/${id}/files`, { key: alice.key });
    expect(files.status, files.text).toBe(200);
    const listed = (files.body as { name: string; content_type: string; url: string }[]).find(
      (file) => file.name === "failed-checkout.png",
    );
    expect(listed).toMatchObject({ content_type: "image/png" });
    const png = await call(server.origin, "GET", listed?.url as string);
    expect(png.status).toBe(200);
    expect(Buffer.from(png.bytes.subarray(0, 8))).toEqual(PNG_SIGNATURE);
  }, 90_000);
});
