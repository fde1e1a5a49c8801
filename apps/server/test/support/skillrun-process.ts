import { type ChildProcess, spawn } from "node:child_process";
import { builtCli } from "../../src/test-support/built-cli.js";
import { TEST_SECRETS_KEY } from "../../src/test-support/test-secrets.js";

/** A `skillrun` process, the built command: a worker or a server. */
export interface SkillrunProcess {
  /** What the process announced: the worker's id, or the server's address. */
  id: string;
  child: ChildProcess;
  /** Sends `signal` and waits for the process to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /**
   * Sends `signal` without waiting; with `group`, to the process's whole process group, as a
   * terminal's Ctrl-C does (the process must have been started with `ownGroup`).
   */
  signal(signal: NodeJS.Signals, options?: { group?: boolean }): void;
  /** Resolves with the first line printed on stdout (logs included) that `pattern` matches. */
  printed(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code once the process has exited (null when a signal ended it). */
  exited: Promise<number | null>;
}

/** How a process is started, beyond its environment. */
export interface StartOptions {
  /** A process group of its own (as a command started from a terminal has), to signal as one. */
  ownGroup?: boolean;
}

/** Starts `skillrun worker` on `databaseUrl` and waits until it says it is executing runs. */
export function startWorkerProcess(
  databaseUrl: string,
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<SkillrunProcess> {
  return startSkillrun(
    ["worker"],
    /Skillrun worker (\S+) is executing runs/,
    { DATABASE_URL: databaseUrl, WORKER_POLL_MS: "50", ...env },
    options,
  );
}

/** Starts `skillrun serve` on a free port; its id is the address it listens on. */
export function startServerProcess(
  databaseUrl: string,
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<SkillrunProcess> {
  return startSkillrun(
    ["serve"],
    /Skillrun is listening on (http:\/\/\S+)/,
    { DATABASE_URL: databaseUrl, PORT: "0", ...env },
    options,
  );
}

/**
 * Starts `skillrun agent --server <origin>` with `key` (scope agent) and waits until it says it
 * takes runs; its id is the agent's id.
 */
export function startAgentProcess(
  origin: string,
  key: string,
  options: { name?: string; args?: string[]; env?: Record<string, string> } = {},
): Promise<SkillrunProcess> {
  return startSkillrun(
    ["agent", "--server", origin, "--name", options.name ?? "test-agent", ...(options.args ?? [])],
    /Skillrun agent .* \((agent_[0-9a-f]+)\) takes client runs/,
    { SKILLRUN_API_KEY: key, ...options.env },
    {},
  );
}

/** Starts `skillrun <args>` and waits for the line `ready` matches; its group 1 is the id. */
async function startSkillrun(
  args: string[],
  ready: RegExp,
  env: Record<string, string>,
  options: StartOptions,
): Promise<SkillrunProcess> {
  const child = spawn(process.execPath, [builtCli(), ...args], {
    detached: options.ownGroup === true,
    env: {
      ...process.env,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
      // The test servers' key: a worker process opens what a test server sealed.
      SECRETS_KEY: TEST_SECRETS_KEY,
      // Tests send many requests with one key; a test of the limit would set it in `env`.
      RATE_LIMIT_PER_MINUTE: "0",
      // As the test servers: a long `wait` keeps its run in its slot unless a test says otherwise.
      PARK_AFTER_SECONDS: "3600",
      ...env,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  // On `close`, not `exit`: by then everything the process printed has been read.
  const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
  let out = "";
  const id = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = ready.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`skillrun ${args[0]} exited (${code}): ${out}`)));
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    id,
    child,
    exited,
    stop: async (signal = "SIGTERM") => {
      if (running()) child.kill(signal);
      await exited;
    },
    signal: (signal, { group = false } = {}) => {
      if (!running()) return;
      if (group) process.kill(-(child.pid as number), signal);
      else child.kill(signal);
    },
    printed: async (pattern, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const line = out.split("\n").find((text) => pattern.test(text));
        if (line !== undefined) return line;
        if (Date.now() > deadline || !running()) {
          throw new Error(`skillrun ${args[0]} never printed ${pattern}; it printed:\n${out}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}
