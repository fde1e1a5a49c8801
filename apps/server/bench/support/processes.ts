import { type ChildProcess, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";

/** A process the benchmark started, and the address or id it announced. */
export interface BenchProcess {
  announced: string;
  child: ChildProcess;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/**
 * Starts `node <args>` with `env` and waits for the first stdout line `ready` matches (group 1 is
 * what it announced). Its output after that is read and dropped: a server logging every request,
 * as by default, writes to a pipe that is kept drained, as a log collector would.
 */
export function startNode(
  args: string[],
  ready: RegExp,
  env: Record<string, string> = {},
): Promise<BenchProcess> {
  // BENCH_CPU_PROF=<dir>: every process started writes a CPU profile there (node --cpu-prof).
  const profile = process.env.BENCH_CPU_PROF;
  const flags = profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`] : [];
  return startProcess(process.execPath, [...flags, ...args], ready, env);
}

/** `startNode` for any command (the FastAPI reference is python3). */
export async function startProcess(
  command: string,
  args: string[],
  ready: RegExp,
  env: Record<string, string> = {},
): Promise<BenchProcess> {
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  let out = "";
  const announced = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = ready.exec(out);
      if (match?.[1]) {
        child.stdout?.off("data", onData);
        child.stdout?.resume();
        out = "";
        resolve(match[1]);
      }
    };
    child.stdout?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited (${code}): ${out}`)));
  });
  return {
    announced,
    child,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/** The resident set size of a process, in MB (Linux: /proc/<pid>/status). */
export async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) / 1024;
}
