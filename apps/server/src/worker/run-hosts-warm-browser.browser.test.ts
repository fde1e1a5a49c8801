import { readdirSync } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  DEFAULT_ENGINE_LIMITS,
  isTaggedBrowser,
  listProcesses,
  type NetworkPolicy,
  parseSkillDefinition,
  type RunJob,
  statFields,
} from "@skillrun/engine";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostedRunHandlers } from "../../test/support/hosted-run-handlers.js";
import { startCookieSite } from "../../test/support/profile-folder.js";
import { type HostOutcome, RunHosts } from "./run-hosts.js";

/**
 * A run process that keeps a browser launched ahead for its next run (WARM_BROWSERS,
 * docs/decisions/0070): the next run takes it, sees nothing a run before it left, is held to its
 * own network policy, and no browser of the process outlives it.
 */

let site: Awaited<ReturnType<typeof startCookieSite>>;
let work: string;
const hosts = new RunHosts(
  {
    size: 1,
    memoryMb: 1024,
    stopGraceMs: 500,
    closeMs: 30_000,
    env: { PATH: process.env.PATH ?? "" },
    warmBrowsers: true,
  },
  pino({ level: "silent" }),
);

beforeAll(async () => {
  site = await startCookieSite();
  work = await mkdtemp(join(tmpdir(), "skillrun-host-warm-test-"));
  hosts.start();
  await hosts.ready(60_000);
});
afterAll(async () => {
  await hosts.close();
  for (const { pid } of warmProcesses()) signal(pid, "SIGKILL");
  await site?.close();
  await rm(work, { recursive: true, force: true });
});

/** Leaves a cookie and a localStorage item behind, and says what it found of them first. */
const definition = parseSkillDefinition(
  `id: s
name: S
inputs: [{ json_key: site, data_type: string }]
steps:
  - goto: "{{ inputs.site }}/"
  - extract: { selector: "#cookies", save_as: cookies }
  - evaluate:
      expression: "(() => { const found = localStorage.getItem('left'); document.cookie = 'left=behind; max-age=3600'; localStorage.setItem('left', 'behind'); return found; })()"
      save_as: stored`,
  "s.yaml",
);

/** Reaches its site, then tries an address the run's policy refuses (port 4 of loopback). */
const reaching = parseSkillDefinition(
  `id: r
name: R
inputs: [{ json_key: site, data_type: string }]
steps:
  - goto: "{{ inputs.site }}/"
  - evaluate:
      expression: "fetch('http://127.0.0.1:4/').then(() => 'fetched', () => 'failed')"
      save_as: fetched`,
  "r.yaml",
);

/** The processes of browsers launched ahead: marked with their run process's tag. */
function warmProcesses() {
  return listProcesses().filter((process) =>
    process.cmdline.includes("--skillrun-tag=run-process-"),
  );
}

/**
 * The nice values of every thread of the processes of browsers launched ahead (and of the
 * sessions they lead), from /proc: the 19th field of each thread's stat.
 */
function warmNiceValues(): Set<number> {
  const sessions = new Set(warmProcesses().map((process) => process.sid));
  const values = new Set<number>();
  for (const { pid, sid } of listProcesses()) {
    if (!sessions.has(sid)) continue;
    try {
      for (const thread of readdirSync(`/proc/${pid}/task`)) {
        values.add(niceOf(`/proc/${pid}/task/${thread}/stat`));
      }
    } catch {
      // Gone while we looked.
    }
  }
  return values;
}

/** The nice value in a process's or thread's stat file. */
function niceOf(statPath: string): number {
  return Number(statFields(statPath)[16]);
}

/** Signals a process that may have ended since it was listed. */
function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Gone already.
  }
}

async function until(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (condition()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface Ran {
  outcome: HostOutcome;
  video: boolean;
  problems: string[];
  /** How many processes carried the run's own tag as its browser started: none on a warm one. */
  ownProcesses: number;
}

async function run(id: string, network: NetworkPolicy, skill = definition): Promise<Ran> {
  const host = hosts.reserve();
  if (host === undefined) throw new Error("no run process is ready");
  const videoPath = join(work, `${id}.webm`);
  const job: RunJob = {
    definition: skill,
    skills: {},
    inputs: { site: site.base },
    secrets: {},
    run: { id, skill_id: "s", owner: "", attempt: 1 },
    limits: DEFAULT_ENGINE_LIMITS,
    network,
    clockOffsetMs: 0,
    files: { dir: join(work, id), existing: [] },
    browser: {
      chromium: process.env,
      videoPath,
      tag: id,
      user: "nobody",
      memoryLimitBytes: 2 * 1024 ** 3,
    },
  };
  const problems: string[] = [];
  let ownProcesses = -1;
  const hosted = hosts.execute(
    host,
    job,
    hostedRunHandlers({
      onProblem: (message) => problems.push(message),
      onBrowserLaunched: () => {
        ownProcesses = listProcesses().filter((process) => isTaggedBrowser(process, id)).length;
      },
    }),
    new AbortController().signal,
  );
  const outcome = await hosted.outcome;
  const { video } = await hosted.closed;
  const size = (await stat(videoPath).catch(() => null))?.size ?? 0;
  return { outcome, video: video !== null && size > 0, problems, ownProcesses };
}

describe("a run process that keeps a browser launched ahead", { timeout: 120_000 }, () => {
  it("launches none before its first browser run, which launches its own", async () => {
    expect(warmProcesses()).toEqual([]);
    const first = await run("run_warm_1", { allowPrivate: true });
    expect(first.outcome).toMatchObject({
      type: "result",
      result: { outcome: "finished", data: { cookies: "none", stored: null } },
    });
    expect(first.ownProcesses).toBeGreaterThan(0);
    expect(first.video).toBe(true);
  });

  it("launches it at the lowest priority, and gives it the runs' browsers' own once up", async () => {
    expect(await until(() => warmProcesses().length > 0, 30_000)).toBe(true);
    // Every thread of it at one priority, a run's browser's: 5 below its run process's (which is
    // 10, or its server's where a nice value cannot be set), not the 19 it launched at.
    expect(
      await until(() => {
        const values = [...warmNiceValues()];
        return values.length === 1 && (values[0] ?? 19) < 19;
      }, 30_000),
    ).toBe(true);
    // The run process's main thread, once it is back from the 19 it launched the browser at.
    const browser = warmProcesses().find((process) => !process.cmdline.includes("--type="));
    const runProcess = niceOf(`/proc/${browser?.ppid}/stat`);
    expect(runProcess).toBeLessThan(14);
    expect([...warmNiceValues()]).toEqual([runProcess + 5]);
  });

  it("gives the next run the browser it launched, with nothing the last run left", async () => {
    expect(await until(() => warmProcesses().length > 0, 30_000)).toBe(true);
    const second = await run("run_warm_2", { allowPrivate: true });
    // The first run's cookie and localStorage item are not there.
    expect(second.outcome).toMatchObject({
      type: "result",
      result: { outcome: "finished", data: { cookies: "none", stored: null } },
    });
    expect(second.ownProcesses).toBe(0);
    expect(second.video).toBe(true);
  });

  it("holds the run that takes it to that run's network policy", async () => {
    expect(await until(() => warmProcesses().length > 0, 30_000)).toBe(true);
    const port = new URL(site.base).port;
    const refused = await run("run_warm_3", { allowedHosts: [`127.0.0.1:${port}`] }, reaching);
    expect(refused.ownProcesses).toBe(0);
    // Its site is reached (nothing is, before a run takes the browser), port 4 is not.
    expect(refused.outcome).toMatchObject({
      type: "result",
      result: { outcome: "finished", data: { fetched: "failed" } },
    });
    expect(refused.problems).toContain(
      `GET http://127.0.0.1:4/ refused: 127.0.0.1 is a loopback address; the allowed hosts let it through on port ${port} only, not 4`,
    );
  });

  it("leaves no browser behind once its process has ended, even one that hangs", async () => {
    expect(await until(() => warmProcesses().length > 0, 30_000)).toBe(true);
    // Stopped, Chromium cannot exit by itself when its process's pipe closes: it is killed.
    for (const { pid } of warmProcesses()) signal(pid, "SIGSTOP");
    await hosts.close();
    expect(await until(() => warmProcesses().length === 0, 10_000)).toBe(true);
  });
});
