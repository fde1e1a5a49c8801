import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent } from "../src/domain/api-types.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call } from "./support/http.js";
import { RunClient } from "./support/runs.js";

/**
 * Video chapters through the API, on the database of this pass: a recorded run's step events
 * say where they are in its video, so a player can jump to a step.
 */

const CHAPTERS = `
id: skill_chapters
name: Chapters
inputs:
  - { json_key: shop_url, data_type: string }
steps:
  - log: before the browser
  - goto: "{{ inputs.shop_url }}"
  - fill: { selector: "#name", value: Grace }
  - id: pause
    wait: 700ms
  - extract: { selector: "#products .name", save_as: first }
  - log: done
`;

let server: TestServer;
let alice: RunClient;
let scratch: string;

beforeAll(async () => {
  server = await startTestServer({ worker: { concurrency: 1 } });
  await server.importSkillYaml("alice", CHAPTERS);
  alice = new RunClient(server.origin, await server.keyFor("alice"));
  scratch = mkdtempSync(join(tmpdir(), "skillrun-chapters-"));
});

afterAll(async () => {
  await server?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** The length of the video at the run's signed address, in ms, as ffprobe reads it. */
async function videoDurationMs(videoUrl: string, runId: string): Promise<number> {
  const reply = await call(server.origin, "GET", videoUrl);
  expect(reply.status).toBe(200);
  const file = join(scratch, `${runId}.webm`);
  writeFileSync(file, reply.bytes);
  const out = execFileSync(
    "ffprobe",
    ["-v", "error", "-show_entries", "format=duration", "-of", "json", file],
    { encoding: "utf8" },
  );
  return Number((JSON.parse(out) as { format: { duration: string } }).format.duration) * 1000;
}

const aboutStep = (event: RunEvent) =>
  event.step !== null && !["run_finished", "run_failed"].includes(event.type);

describe("video chapters", { timeout: 90_000 }, () => {
  it("every step event of a recorded run carries its offset in the video, in order", async () => {
    const { id } = await alice.start("skill_chapters", { shop_url: `${server.origin}/demo/` });
    const ended = await alice.ended(id, 60_000);
    expect(ended.state, JSON.stringify(ended.data)).toBe("finish");
    const run = await alice.waitFor(id, (found) => typeof found.video_url === "string");
    const durationMs = await videoDurationMs(run.video_url as string, id);
    const events = await alice.events(id);

    // The run's own events never have one; nor do the step events before the browser started.
    for (const event of events.filter((found) => !aboutStep(found))) {
      expect(event.video_offset_ms, event.type).toBeNull();
    }
    const stepEvents = events.filter(aboutStep);
    expect(stepEvents.slice(0, 4).map((event) => [event.type, event.video_offset_ms])).toEqual([
      ["step_started", null],
      ["log", null],
      ["step_finished", null],
      ["step_started", null],
    ]);
    const chaptered = stepEvents.slice(4);
    expect(chaptered.map((event) => event.type)).toContain("data_updated");
    const offsets = chaptered.map((event) => event.video_offset_ms);
    for (const offset of offsets) expect(Number.isInteger(offset), String(offset)).toBe(true);
    const numbers = offsets as number[];
    expect(numbers[0]).toBeGreaterThanOrEqual(0);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(numbers.at(-1)).toBeLessThanOrEqual(durationMs);
    // The pause spans as much of the video as of the run.
    const at = (type: string) =>
      chaptered.find((event) => event.type === type && event.step?.id === "pause")
        ?.video_offset_ms as number;
    expect(at("step_finished") - at("step_started")).toBeGreaterThanOrEqual(700);
  });

  it("a run without a browser has none", async () => {
    await server.importSkillYaml(
      "alice",
      "id: skill_plain\nname: Plain\nsteps:\n  - log: hi\n  - set: { a: 1 }\n",
    );
    const { id } = await alice.start("skill_plain");
    expect((await alice.ended(id)).state).toBe("finish");
    const events = await alice.events(id);
    expect(events.length).toBeGreaterThan(5);
    for (const event of events) expect(event.video_offset_ms).toBeNull();
  });
});
