import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DEFAULT_ENGINE_LIMITS, type ProfileFolder, profileFolderProblem } from "@skillrun/engine";
import { pino } from "pino";
import { Agent } from "../agent/agent.js";
import { RunFiles } from "../agent/run-files.js";
import { ServerLink } from "../agent/server-link.js";
import { loadConfig } from "../config.js";
import { browserSettingsOf } from "../worker/browser-settings.js";
import { DEFAULT_EVENT_LIMITS } from "../worker/event-limits.js";
import { stopOnSignal } from "./stop-on-signal.js";

export interface AgentCommandOptions {
  server: string;
  /** The Chromium to run (--chromium); CHROMIUM_PATH, then PATH, otherwise. */
  chromium?: string;
  concurrency?: string;
  name?: string;
  /** A Chromium profile folder each run's browser starts on (a copy of it, by default). */
  profileDir?: string;
  /** Runs use the profile folder itself, one at a time. */
  profileWritable?: boolean;
}

/** This build's version, as agents report it (GET /v1/agent/list). */
const VERSION = "0.0.2";

/**
 * `skillrun agent --server URL`: executes the key's owner's `environment: client` runs on this
 * machine until SIGINT/SIGTERM, then releases the runs under way. The key comes from
 * SKILLRUN_API_KEY (scope `agent`). Returns -1 ("still running") once started; exits 1 when the
 * server refuses the key or speaks another protocol version.
 */
export async function agentCommand(options: AgentCommandOptions): Promise<number> {
  const config = loadConfig();
  const key = config.SKILLRUN_API_KEY;
  if (key === undefined) {
    console.error("skillrun agent needs SKILLRUN_API_KEY: a key with the scope agent");
    return 2;
  }
  if (!/^https?:\/\//.test(options.server)) {
    console.error("skillrun agent needs --server http(s)://host[:port]");
    return 2;
  }
  const concurrency = Number(options.concurrency ?? "1");
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
    console.error("--concurrency must be a whole number from 1 to 64");
    return 2;
  }
  const profileFolder = await profileFolderOf(options, concurrency);
  if (typeof profileFolder === "string") {
    console.error(profileFolder);
    return 2;
  }
  const logger = pino({ level: config.LOG_LEVEL });
  const identity = {
    id: `agent_${randomBytes(16).toString("hex")}`,
    name: (options.name ?? hostname()).slice(0, 128),
    version: VERSION,
  };
  const server = new ServerLink(options.server, key, identity);
  const workDir = await mkdtemp(join(tmpdir(), "skillrun-agent-"));
  const chromium = {
    ...((options.chromium ?? config.CHROMIUM_PATH)
      ? { CHROMIUM_PATH: options.chromium ?? config.CHROMIUM_PATH }
      : {}),
    ...(config.PATH !== undefined && { PATH: config.PATH }),
  };
  const agent = new Agent(
    {
      server,
      logger,
      chromium,
      browser: browserSettingsOf(config),
      limits: DEFAULT_ENGINE_LIMITS,
      eventLimits: DEFAULT_EVENT_LIMITS,
      memoryMb: config.RUN_MEMORY_MB,
      workDir,
      files: new RunFiles(server, logger),
      fileMaxBytes: config.FILE_MAX_BYTES,
      ...(profileFolder && { profileFolder }),
    },
    { concurrency, waitSeconds: 25, memoryMb: config.RUN_MEMORY_MB, stopGraceMs: 500 },
    // Run processes get PATH (to find ffmpeg and Chromium) and nothing else.
    config.PATH === undefined ? {} : { PATH: config.PATH },
  );
  await agent.start();
  console.log(
    `Skillrun agent ${identity.name} (${identity.id}) takes client runs from ${options.server}, ${concurrency} at a time${profileFolder === undefined ? "" : `, on ${profileFolder.writable ? "the browser profile folder" : "copies of the browser profile folder"} ${profileFolder.path}`}`,
  );
  stopOnSignal(logger, async () => {
    await agent.stop();
    await rm(workDir, { recursive: true, force: true });
  });
  agent.stopped().catch(async (error: unknown) => {
    console.error(`skillrun agent: ${(error as Error).message}`);
    await agent.stop();
    await rm(workDir, { recursive: true, force: true });
    process.exit(1);
  });
  return -1;
}

/**
 * The profile folder the agent's runs start on, or why the agent refuses it: a folder that is
 * missing or unreadable, or writable use the folder's lock cannot give (several runs at once, a
 * running Chromium holding it). See docs/decisions/0068-local-profile-folders.md.
 */
async function profileFolderOf(
  options: AgentCommandOptions,
  concurrency: number,
): Promise<ProfileFolder | undefined | string> {
  const writable = options.profileWritable === true;
  if (options.profileDir === undefined) {
    return writable ? "--profile-writable needs --profile-dir <folder>" : undefined;
  }
  if (writable && concurrency > 1) {
    return `--profile-writable runs one run at a time (Chromium locks a profile folder to one browser): use --concurrency 1, or leave out --profile-writable to give each run a copy of ${options.profileDir}`;
  }
  const folder = { path: resolve(options.profileDir), writable };
  const problem = await profileFolderProblem(folder);
  return problem === undefined ? folder : `--profile-dir: ${problem}`;
}
