import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { paths } from "../../src/paths.js";

const serverDir = join(paths.root, "apps", "server");
const cli = join(serverDir, "src", "cli.ts");

/** A `skillrun worker` process, run from source. */
export interface WorkerProcess {
  /** The id the worker claims runs under (as run_claimed events name it). */
  id: string;
  child: ChildProcess;
  /** Sends `signal` and waits for the process to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `skillrun worker` on `databaseUrl` and waits until it says it is executing runs. */
export async function startWorkerProcess(
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", cli, "worker"], {
    // From the server's folder, where `--import tsx` resolves.
    cwd: serverDir,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
      WORKER_POLL_MS: "50",
      ...env,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const id = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Skillrun worker (\S+) is executing runs/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`skillrun worker exited (${code}): ${out}`)));
  });
  return {
    id,
    child,
    stop: async (signal = "SIGTERM") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
