// Worker threads or child processes for run isolation: the start-up of one host, 200 trivial runs
// through 4 reused hosts, and the memory 4 idle hosts take. The figures are in
// docs/decisions/0027-run-processes-not-threads.md.
import { fork } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import {
  DEFAULT_ENGINE_LIMITS,
  type FromRunHost,
  parseSkillDefinition,
  RUN_HOST_ENTRY,
  type RunJob,
  type ToRunHost,
} from "@skillrun/engine";

interface Host {
  send(message: ToRunHost): void;
  on(listener: (message: FromRunHost) => void): void;
  pid: number | undefined;
  kill(): Promise<unknown>;
}

const flavours: Record<string, () => Host> = {
  thread: () => {
    const worker = new Worker(RUN_HOST_ENTRY, { resourceLimits: { maxOldGenerationSizeMb: 256 } });
    return {
      send: (message) => worker.postMessage(message),
      on: (listener) => worker.on("message", listener),
      pid: undefined,
      kill: () => worker.terminate(),
    };
  },
  process: () => {
    const child = fork(fileURLToPath(RUN_HOST_ENTRY), [], {
      execArgv: ["--max-old-space-size=256"],
      serialization: "advanced",
      stdio: ["ignore", "ignore", "ignore", "ipc"],
    });
    return {
      send: (message) => child.send(message),
      on: (listener) => child.on("message", listener),
      pid: child.pid,
      kill: async () => child.kill("SIGKILL"),
    };
  },
};

const job: RunJob = {
  definition: parseSkillDefinition("id: s\nname: S\nsteps:\n  - set: { a: 1 }\n", "s.yaml"),
  skills: {},
  inputs: {},
  secrets: {},
  run: { id: "run_bench", skill_id: "s" },
  limits: DEFAULT_ENGINE_LIMITS,
  network: {},
  clockOffsetMs: 0,
  files: { dir: "/tmp/unused", existing: [] },
  browser: {
    chromium: {},
    videoPath: "/tmp/unused.webm",
    tag: "b",
    user: "nobody",
    memoryLimitBytes: 1024 * 1024 * 1024,
  },
};

/** Runs the trivial job on `host`; resolves when its browser step is closed (no browser: at once). */
function runOn(host: Host & { waiting?: () => void }): Promise<void> {
  return new Promise((resolve) => {
    host.waiting = resolve;
    host.send({ type: "start", job });
  });
}

function rssKb(pid: number | "self"): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

for (const [name, make] of Object.entries(flavours)) {
  const before = rssKb("self");
  const started = performance.now();
  const hosts = Array.from({ length: 4 }, () => {
    const host: Host & { waiting?: () => void } = make();
    host.on((message) => {
      if (message.type === "closed") host.waiting?.();
    });
    return host;
  });
  await runOn(hosts[0] as Host);
  const firstRunMs = performance.now() - started;
  await Promise.all(hosts.map(runOn));
  const childrenKb = hosts.reduce((sum, host) => sum + (host.pid ? rssKb(host.pid) : 0), 0);
  const memoryMb = (rssKb("self") - before + childrenKb) / 1024;
  const t0 = performance.now();
  for (let i = 0; i < 200 / hosts.length; i++) await Promise.all(hosts.map(runOn));
  const seconds = (performance.now() - t0) / 1000;
  console.log(
    `${name}: start + first run ${firstRunMs.toFixed(0)} ms; 200 trivial runs on 4 hosts ` +
      `${seconds.toFixed(2)} s (${(200 / seconds).toFixed(0)} runs/s); 4 hosts ≈ ${memoryMb.toFixed(0)} MB RSS`,
  );
  await Promise.all(hosts.map((host) => host.kill()));
}
