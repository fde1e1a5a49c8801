import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_ENGINE_LIMITS, parseSkillDefinition, type RunJob } from "@skillrun/engine";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostedRunHandlers } from "../../test/support/hosted-run-handlers.js";
import { RunHosts } from "./run-hosts.js";

/**
 * Which run process a run goes to: the one idle longest, never the one a run has just left (it
 * is launching its next run's browser meanwhile, docs/decisions/0071).
 */

let work: string;
const hosts = new RunHosts(
  {
    size: 2,
    memoryMb: 256,
    stopGraceMs: 500,
    closeMs: 10_000,
    env: { PATH: process.env.PATH ?? "" },
    warmBrowsers: false,
  },
  pino({ level: "silent" }),
);

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "skillrun-host-order-test-"));
  hosts.start();
  await hosts.ready(60_000);
});
afterAll(async () => {
  await hosts.close();
  await rm(work, { recursive: true, force: true });
});

const definition = parseSkillDefinition(
  `id: s
name: S
steps:
  - wait: 10ms`,
  "s.yaml",
);

describe("RunHosts' order", () => {
  it("gives a process reserved and given back unused to the next reservation again", () => {
    const first = hosts.reserve();
    expect(first).toBeDefined();
    hosts.unreserve(first as NonNullable<typeof first>);
    const again = hosts.reserve();
    expect(again).toBe(first);
    hosts.unreserve(again as NonNullable<typeof again>);
  });

  it("puts the process a run has left last in line", async () => {
    const used = hosts.reserve();
    if (used === undefined) throw new Error("no run process is ready");
    const job: RunJob = {
      definition,
      skills: {},
      inputs: {},
      secrets: {},
      run: { id: "run_order", skill_id: "s", owner: "", attempt: 1 },
      limits: DEFAULT_ENGINE_LIMITS,
      network: { allowPrivate: false },
      clockOffsetMs: 0,
      files: { dir: join(work, "run_order"), existing: [] },
      browser: {
        chromium: process.env,
        videoPath: join(work, "run_order.webm"),
        tag: "run_order",
        user: "nobody",
        memoryLimitBytes: 1024 ** 3,
      },
    };
    const hosted = hosts.execute(used, job, hostedRunHandlers(), new AbortController().signal);
    expect(await hosted.outcome).toMatchObject({ type: "result", result: { outcome: "finished" } });
    await hosted.closed;
    // Twice over, the other one: reserved and given back, it stays first.
    for (let i = 0; i < 2; i++) {
      const next = hosts.reserve();
      expect(next).toBeDefined();
      expect(next).not.toBe(used);
      hosts.unreserve(next as NonNullable<typeof next>);
    }
  });
});
