import { type ChildProcess, spawn } from "node:child_process";
import { builtCli } from "../../src/test-support/built-cli.js";

/** A `skillrun` process, the built command: a worker or a server. */
export interface SkillrunProcess {
  /** What the process announced: the worker's id, or the server's address. */
  id: string;
  child: ChildProcess;
  /** Sends `signal` and waits for the process to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `skillrun worker` on `databaseUrl` and waits until it says it is executing runs. */
export function startWorkerProcess(
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<SkillrunProcess> {
  return startSkillrun(["worker"], /Skillrun worker (\S+) is executing runs/, {
    DATABASE_URL: databaseUrl,
    WORKER_POLL_MS: "50",
    ...env,
  });
}

/** Starts `skillrun serve` on a free port; its id is the address it listens on. */
export function startServerProcess(
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<SkillrunProcess> {
  return startSkillrun(["serve"], /Skillrun is listening on (http:\/\/\S+)/, {
    DATABASE_URL: databaseUrl,
    PORT: "0",
    ...env,
  });
}

/** Starts `skillrun <args>` and waits for the line `ready` matches; its group 1 is the id. */
async function startSkillrun(
  args: string[],
  ready: RegExp,
  env: Record<string, string>,
): Promise<SkillrunProcess> {
  const child = spawn(process.execPath, [builtCli(), ...args], {
    env: { ...process.env, LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const id = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = ready.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`skillrun ${args[0]} exited (${code}): ${out}`)));
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
