// `npx tsx apps/server/bench/browser-runs.ts [--quick]` (part of `npm run bench`): the demo shop
// order (skills/demo-shop-order.yaml, 11 steps and a 1 s wait) as Skillrun runs it (`skillrun
// serve` on SQLite, 4 worker slots, the video on) against the same flow in a bare playwright-core
// script (browser/bare-shop-order.ts: a new Chromium per run, no video, no database), in the same
// process of measuring: one run at a time, then four at a time. Prints the table with its targets,
// writes it into BENCHMARKS.md (not with --quick) and exits 1 when a target is missed.
import { fork } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { paths } from "../src/paths.js";
import { bytesWritten, untilDiskQuiet } from "./browser/disk-writes.js";
import { type TreeFigures, watchTree } from "./browser/process-tree.js";
import { type ShopSite, startShopSite } from "./browser/shop-site.js";
import { writeBetween } from "./report.js";
import { type BenchDatabase, benchDatabase } from "./support/bench-database.js";
import type { BenchProcess } from "./support/processes.js";
import { api, startServe } from "./support/skillrun.js";
import { quantile } from "./support/stats.js";

const quick = process.argv.includes("--quick");
const ONE_AT_A_TIME_RUNS = quick ? 3 : 10;
const FOUR_AT_A_TIME_RUNS = quick ? 8 : 24;
const BENCHMARKS_MD = fileURLToPath(new URL("../../../BENCHMARKS.md", import.meta.url));
const SHOP_SKILL = readFileSync(`${paths.root}/skills/demo-shop-order.yaml`, "utf8");

/** Targets, as the issue that set them wrote them. */
const TARGETS = {
  throughputRatio: 0.8,
  oneAtATimeRatio: 1.05,
  firstStepP50Ms: 300,
  endP99Ms: 500,
};

interface Phase {
  /** Each run's milliseconds: Skillrun's from its POST to its end_time, the script's from its
   * browser's launch to its close. */
  runMs: number[];
  /** Runs ended per minute over the phase's wall time. */
  perMinute: number;
  tree: TreeFigures;
  runs: number;
  /** What the machine's disks took during the phase, MB a second. */
  diskMbPerSecond: number;
  /** How long the phase waited for a quiet disk before it began, ms. */
  quietWaitMs: number;
}

interface SkillrunPhase extends Phase {
  /** POST → the first step_started, ms. */
  firstStepMs: number[];
  /** The last step's end → end_time, ms. */
  endMs: number[];
  /** Of which: the last step's end → the video_recorded event (browser closed, video complete). */
  videoMs: number[];
}

interface RunSession {
  state: string | null;
  end_time: string | null;
}

interface RunEvent {
  type: string;
  at: string;
}

/**
 * Waits for the run's ending as a client watching it does: its step log's stream, which the
 * server closes after the run's ending, rather than asking for the run every 100 ms (which the
 * server would answer for nothing, and which the script has no counterpart of).
 */
async function untilEnded(base: string, key: string, id: string): Promise<void> {
  const response = await fetch(`${base}/v1/run/${id}/events/stream`, {
    headers: { authorization: `Bearer ${key}` },
  });
  if (!response.ok || response.body === null) {
    throw new Error(`GET /run/${id}/events/stream: ${response.status} ${await response.text()}`);
  }
  for await (const _chunk of response.body) {
    // Read to its end: the server closes it after the run's ending.
  }
}

async function skillrunRun(
  server: BenchProcess,
  database: BenchDatabase,
  shopUrl: string,
): Promise<{ runMs: number; firstStepMs: number; endMs: number; videoMs: number }> {
  const posted = Date.now();
  const { id } = await api<{ id: string }>(server.announced, database.key, "/run/", {
    method: "POST",
    body: { skill_id: "skill_demo_shop_order", inputs: { shop_url: shopUrl } },
  });
  await untilEnded(server.announced, database.key, id);
  const run = await api<RunSession>(server.announced, database.key, `/run/${id}`);
  if (run.end_time === null) throw new Error(`run ${id}'s stream closed before it ended`);
  if (run.state !== "finish") throw new Error(`run ${id} ended ${run.state}`);
  const items = await api<RunEvent[]>(
    server.announced,
    database.key,
    `/run/${id}/events?limit=500`,
  );
  const firstStep = items.find((event) => event.type === "step_started");
  const lastStep = items.filter((event) => event.type === "step_finished").at(-1);
  const video = items.find((event) => event.type === "video_recorded");
  if (firstStep === undefined || lastStep === undefined || video === undefined) {
    throw new Error(`run ${id} has no steps or no video in its log`);
  }
  const ended = Date.parse(run.end_time);
  return {
    runMs: ended - posted,
    firstStepMs: Date.parse(firstStep.at) - posted,
    endMs: ended - Date.parse(lastStep.at),
    videoMs: Date.parse(video.at) - Date.parse(lastStep.at),
  };
}

async function skillrunPhase(
  server: BenchProcess,
  database: BenchDatabase,
  shopUrl: string,
  runs: number,
  atATime: number,
): Promise<SkillrunPhase> {
  const results: Awaited<ReturnType<typeof skillrunRun>>[] = [];
  const quietWaitMs = await untilDiskQuiet();
  const writtenBefore = await bytesWritten();
  const watch = watchTree(server.child.pid as number);
  const started = Date.now();
  let next = 0;
  const lane = async () => {
    while (next < runs) {
      next += 1;
      results.push(await skillrunRun(server, database, shopUrl));
    }
  };
  await Promise.all(Array.from({ length: atATime }, lane));
  const wallMs = Date.now() - started;
  return {
    runs,
    runMs: results.map((r) => r.runMs),
    firstStepMs: results.map((r) => r.firstStepMs),
    endMs: results.map((r) => r.endMs),
    videoMs: results.map((r) => r.videoMs),
    perMinute: (runs / wallMs) * 60_000,
    tree: await watch.stop(),
    diskMbPerSecond: await diskMbPerSecondSince(writtenBefore, wallMs),
    quietWaitMs,
  };
}

async function barePhase(shopUrl: string, runs: number, atATime: number): Promise<Phase> {
  const quietWaitMs = await untilDiskQuiet();
  const writtenBefore = await bytesWritten();
  const child = fork(
    fileURLToPath(new URL("./browser/bare-shop-order.ts", import.meta.url)),
    [shopUrl, String(runs), String(atATime)],
    { stdio: ["ignore", "inherit", "inherit", "ipc"] },
  );
  const watch = watchTree(child.pid as number);
  const started = Date.now();
  const runMs = await new Promise<number[]>((resolve, reject) => {
    child.once("message", (times) => resolve(times as number[]));
    child.once("exit", (code) => reject(new Error(`the bare script exited (${code})`)));
  });
  const wallMs = Date.now() - started;
  return {
    runs,
    runMs,
    perMinute: (runs / wallMs) * 60_000,
    tree: await watch.stop(),
    diskMbPerSecond: await diskMbPerSecondSince(writtenBefore, wallMs),
    quietWaitMs,
  };
}

async function diskMbPerSecondSince(writtenBefore: number, wallMs: number): Promise<number> {
  return ((await bytesWritten()) - writtenBefore) / 1e6 / (wallMs / 1000);
}

const ms = (n: number) => `${Math.round(n).toLocaleString("en")} ms`;
const perRun = (phase: Phase, seconds: number) => `${(seconds / phase.runs).toFixed(2)} s`;

function cpuCell(phase: Phase, root: string): string {
  const cpu = phase.tree.cpuSeconds;
  return [
    `${root} ${perRun(phase, cpu.root)}`,
    ...(cpu["run process"] > 0 ? [`run process ${perRun(phase, cpu["run process"])}`] : []),
    `Chromium ${perRun(phase, cpu.chromium)}`,
    ...(cpu.ffmpeg > 0 ? [`ffmpeg ${perRun(phase, cpu.ffmpeg)}`] : []),
    ...(cpu.other > 0 ? [`other ${perRun(phase, cpu.other)}`] : []),
  ].join(", ");
}

function diskCell(phase: Phase): string {
  return `${phase.diskMbPerSecond.toFixed(1)} MB/s; ${(phase.quietWaitMs / 1000).toFixed(1)} s`;
}

interface Figures {
  one: { skillrun: SkillrunPhase; bare: Phase };
  four: { skillrun: SkillrunPhase; bare: Phase };
}

function tableOf(f: Figures): { table: string; missed: string[] } {
  const missed: string[] = [];
  const check = (ok: boolean, what: string) => {
    if (!ok) missed.push(what);
    return ok ? "✓" : "✗ missed";
  };
  const oneRatio = quantile(f.one.skillrun.runMs, 0.5) / quantile(f.one.bare.runMs, 0.5);
  const fourRatio = f.four.skillrun.perMinute / f.four.bare.perMinute;
  const firstStep = quantile([...f.one.skillrun.firstStepMs, ...f.four.skillrun.firstStepMs], 0.5);
  const endMs = [...f.one.skillrun.endMs, ...f.four.skillrun.endMs];
  const videoMs = [...f.one.skillrun.videoMs, ...f.four.skillrun.videoMs];
  const end = quantile(endMs, 0.99);
  const phaseRows = (name: string, p: { skillrun: SkillrunPhase; bare: Phase }) => [
    `| ${name}: per run p50 / p99 | ${ms(quantile(p.skillrun.runMs, 0.5))} / ${ms(quantile(p.skillrun.runMs, 0.99))} | ${ms(quantile(p.bare.runMs, 0.5))} / ${ms(quantile(p.bare.runMs, 0.99))} | |`,
    `| ${name}: runs per minute | ${p.skillrun.perMinute.toFixed(1)} | ${p.bare.perMinute.toFixed(1)} | |`,
    `| ${name}: CPU per run | ${cpuCell(p.skillrun, "server")} | ${cpuCell(p.bare, "script")} | |`,
    `| ${name}: memory (PSS) at the peak, without the server or script | ${Math.round(p.skillrun.tree.peakChildrenPssMb)} MB | ${Math.round(p.bare.tree.peakChildrenPssMb)} MB | |`,
    `| ${name}: the disks' writes during the phase; the wait for a quiet disk before it | ${diskCell(p.skillrun)} | ${diskCell(p.bare)} | |`,
  ];
  const lines = [
    "| | Skillrun (video on) | bare script | target |",
    "| --- | --- | --- | --- |",
    ...phaseRows("one at a time", f.one),
    `| one at a time: Skillrun's p50 ÷ the script's | ${oneRatio.toFixed(2)}× | | ≤ ${TARGETS.oneAtATimeRatio}× ${check(oneRatio <= TARGETS.oneAtATimeRatio, "one at a time")} |`,
    ...phaseRows("four at a time", f.four),
    `| four at a time: memory per concurrent run | ${Math.round(f.four.skillrun.tree.peakChildrenPssMb / 4)} MB | ${Math.round(f.four.bare.tree.peakChildrenPssMb / 4)} MB | |`,
    `| four at a time: Skillrun's throughput ÷ the script's | ${fourRatio.toFixed(2)}× | | ≥ ${TARGETS.throughputRatio}× ${check(fourRatio >= TARGETS.throughputRatio, "four at a time")} |`,
    `| POST → first step, p50 | ${ms(firstStep)} | | ≤ ${TARGETS.firstStepP50Ms} ms ${check(firstStep <= TARGETS.firstStepP50Ms, "POST → first step")} |`,
    `| last step → end_time, p99 | ${ms(end)} | | ≤ ${TARGETS.endP99Ms} ms ${check(end <= TARGETS.endP99Ms, "last step → end_time")} |`,
    `| of which last step → video_recorded (browser closed, video complete), p50 / p99; end_time p50 | ${ms(quantile(videoMs, 0.5))} / ${ms(quantile(videoMs, 0.99))}; ${ms(quantile(endMs, 0.5))} | | |`,
    `| the server's PSS at the peak (four at a time) | ${Math.round(f.four.skillrun.tree.peakRootPssMb)} MB | | |`,
  ];
  return { table: lines.join("\n"), missed };
}

let shop: ShopSite | undefined;
let database: BenchDatabase | undefined;
let server: BenchProcess | undefined;
try {
  shop = await startShopSite();
  database = await benchDatabase("sqlite", [SHOP_SKILL]);
  server = await startServe({
    ...database.env,
    WORKER_CONCURRENCY: "4",
    LOG_LEVEL: "warn",
    // The shop is on loopback, which runs may not reach by default.
    ALLOW_PRIVATE_NETWORKS: "true",
  });
  // Four of each at once first, not counted: what a cold disk cache and first compilations cost,
  // and each of the server's four run processes' first browser run (it loads playwright-core
  // then, once per process: decision 0067), as in a server that has been running.
  console.log("warming up…");
  await skillrunPhase(server, database, shop.url, 4, 4);
  await barePhase(shop.url, 4, 4);
  console.log(`one at a time, ${ONE_AT_A_TIME_RUNS} runs each…`);
  const one = {
    skillrun: await skillrunPhase(server, database, shop.url, ONE_AT_A_TIME_RUNS, 1),
    bare: await barePhase(shop.url, ONE_AT_A_TIME_RUNS, 1),
  };
  console.log(`four at a time, ${FOUR_AT_A_TIME_RUNS} runs each…`);
  const four = {
    skillrun: await skillrunPhase(server, database, shop.url, FOUR_AT_A_TIME_RUNS, 4),
    bare: await barePhase(shop.url, FOUR_AT_A_TIME_RUNS, 4),
  };
  const { table, missed } = tableOf({ one, four });
  console.log(`\n${table}\n`);
  if (!quick) {
    writeBetween(
      BENCHMARKS_MD,
      "browser",
      `Measured ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC: ${ONE_AT_A_TIME_RUNS} runs one at a time and ${FOUR_AT_A_TIME_RUNS} four at a time, each side, after four of each at once not counted (every run process of the server warm, as in a server that has been running).\n\n${table}`,
    );
    console.log(`written to ${BENCHMARKS_MD}`);
  }
  if (missed.length > 0) {
    console.log(`missed: ${missed.join(", ")}`);
    process.exitCode = 1;
  }
} finally {
  await server?.stop();
  await database?.drop();
  await shop?.close();
}
