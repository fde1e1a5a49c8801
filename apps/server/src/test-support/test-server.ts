import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseSkillDefinition, type RunFile } from "@skillrun/engine";
import type { Logger } from "pino";
import type { AppDeps } from "../app.js";
import { loadConfig } from "../config.js";
import type { Database } from "../db/database.js";
import type { RunExecutionRepository } from "../db/repositories/run-execution.js";
import type { SkillRecord } from "../db/repositories/skills.js";
import { type Clock, systemClock } from "../domain/clock.js";
import type { Scope } from "../domain/scopes.js";
import type { FileStore } from "../files/file-store.js";
import { VideoUrlSigner } from "../files/signed-url.js";
import type { Repositories } from "../repositories.js";
import { createRuntime } from "../runtime.js";
import type { Scheduler, SchedulerOptions } from "../schedules/scheduler.js";
import { skillRecordOf } from "../skills/import-skills.js";
import type { WebhookSenderOptions } from "../webhooks/webhook-sender.js";
import type { Worker, WorkerOptions } from "../worker/worker.js";
import { createTestDatabase } from "./test-database.js";
import { TEST_SECRETS_KEY } from "./test-secrets.js";

/** The video signing secret test servers use unless told otherwise. */
export const TEST_VIDEO_SECRET = "test-video-signing-secret-0123456789abcdef";

export interface TestServerOptions {
  /** The clock of the repositories and of video address expiry; the system's by default. */
  clock?: Clock;
  /** Defaults to TEST_VIDEO_SECRET. */
  videoSigningSecret?: string;
  /** Defaults to 3600, as in production. */
  videoUrlTtlSeconds?: number;
  /**
   * Starts an in-process worker with these options (over the defaults) beside the server; without
   * it runs stay queued, which the API tests rely on.
   */
  worker?: Partial<WorkerOptions>;
  /** The repository the worker writes runs through, made from the real one (to slow its writes). */
  workerExecution?: (repository: RunExecutionRepository) => RunExecutionRepository;
  /** The Chromium the worker's browser steps launch; found as in production when absent. */
  chromiumPath?: string;
  /** BROWSER_MEMORY_MB: the production default when absent. */
  browserMemoryMb?: number;
  /** Last word on the app's dependencies (failing repositories, PUBLIC_URL, …). */
  override?: (deps: AppDeps) => AppDeps;
  /** ALLOW_PRIVATE_NETWORKS; true (unlike production) unless a test of the guard says false. */
  allowPrivateNetworks?: boolean;
  /** The server's logger (to read what it logs); a silent one by default. */
  logger?: Logger;
  /** Serves the demo site at /demo/ (true, as `npm start` does). */
  demo?: boolean;
  /** More configuration, as environment variables over the test defaults (TRUST_PROXY, …). */
  env?: Record<string, string>;
  /** Webhook sender options over the defaults (a shorter retry schedule or timeout). */
  webhooks?: Partial<WebhookSenderOptions>;
  /**
   * Starts the schedules' tick loop with these options (over the defaults); without it no tick
   * fires, which the API tests rely on. A test on a clock of its own stops the loop
   * (`scheduler.stop()`, which waits for its first round) and drives rounds with
   * `scheduler.runDue()`.
   */
  scheduler?: Partial<SchedulerOptions>;
  /** Draws schedules' jitter; Math.random by default. */
  random?: () => number;
  /**
   * The DATABASE_URL of another test server's database, to share it (a second server of one
   * deployment, or the same server restarted); this server then leaves it in place when closed.
   */
  databaseUrl?: string;
}

export interface TestServer {
  /** e.g. http://127.0.0.1:40123 */
  origin: string;
  /** origin + /v1 */
  baseUrl: string;
  db: Database;
  repos: Repositories;
  /** The in-process worker, when one was asked for. */
  worker: Worker | undefined;
  /** The schedules' tick loop, when one was asked for. */
  scheduler: Scheduler | undefined;
  /** The database's DATABASE_URL, for worker processes a test starts beside the server. */
  databaseUrl: string;
  /** The file store (videos, run files, uploads), in a fresh folder (not created until a video is written). */
  fileStore: FileStore;
  /** Creates an API key for `owner` (with every scope unless `scopes` says) and returns it. */
  keyFor(owner: string, scopes?: readonly Scope[]): Promise<string>;
  importSkills(owner: string, records: SkillRecord[]): Promise<void>;
  /** Imports skill definitions written in YAML, as `skillrun skills import` would. */
  importSkillYaml(owner: string, ...yaml: string[]): Promise<void>;
  /** Writes `bytes` as the run's video. */
  putVideo(runId: string, bytes: Uint8Array): Promise<void>;
  /** A signed address of the run's video on this server, made as the server makes them. */
  videoUrlFor(runId: string): string;
  /**
   * Writes `bytes` as the run's file `name` and indexes it, as a worker does for a file a run
   * stored; `name` is used as given (a test may write one the engine would not name so).
   */
  putRunFile(
    runId: string,
    name: string,
    bytes: Uint8Array,
    options?: { contentType?: string; createdAt?: Date },
  ): Promise<RunFile>;
  /** A signed address of the run's file `name` on this server, made as the server makes them. */
  fileUrlFor(runId: string, name: string): string;
  close(): Promise<void>;
}

/**
 * The real server over real HTTP on a random loopback port, built by `createRuntime` as
 * `skillrun serve` builds it, with a fresh database of the tests' flavour (TEST_FLAVOUR: a SQLite
 * file, or a throwaway PostgreSQL database) and video folder, responses validated against
 * openapi.yaml.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), "skillrun-test-"));
  const database =
    options.databaseUrl === undefined
      ? await createTestDatabase()
      : { url: options.databaseUrl, drop: async () => {} };
  const clock = options.clock ?? systemClock;
  const secret = options.videoSigningSecret ?? TEST_VIDEO_SECRET;
  const ttl = options.videoUrlTtlSeconds ?? 3600;
  // The configuration is parsed from an environment as in production, so its defaults hold.
  const config = loadConfig({
    DATABASE_URL: database.url,
    HOST: "127.0.0.1",
    PORT: "0",
    VIDEO_DIR: join(dir, "videos"),
    VIDEO_SIGNING_SECRET: secret,
    // One key for every test server and the worker processes tests start beside them.
    SECRETS_KEY: TEST_SECRETS_KEY,
    VIDEO_URL_TTL_SECONDS: String(ttl),
    VALIDATE_RESPONSES: "true",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    // Without a worker, runs stay queued, which the API tests rely on.
    WORKER_CONCURRENCY: String(options.worker ? (options.worker.concurrency ?? 4) : 0),
    // As fast as on SQLite on either flavour: test workers find polled runs quickly.
    WORKER_POLL_MS: "250",
    ...(options.chromiumPath ? { CHROMIUM_PATH: options.chromiumPath } : {}),
    ...(options.browserMemoryMb ? { BROWSER_MEMORY_MB: String(options.browserMemoryMb) } : {}),
    PATH: process.env.PATH,
    // Test runs call fixture servers on loopback, which the default policy refuses; a test of the
    // guard itself starts its server with `allowPrivateNetworks: false`.
    ALLOW_PRIVATE_NETWORKS: options.allowPrivateNetworks === false ? "false" : "true",
    // Tests send many requests with one key; a test of the rate limit sets it in `env`.
    RATE_LIMIT_PER_MINUTE: "0",
    // Many tests keep a run in its slot with a long `wait` (to cancel it, stop its worker, …);
    // parking has tests of its own, which lower it.
    PARK_AFTER_SECONDS: "3600",
    // A browser launched ahead after every browser run would load the machine the suites share;
    // the tests of warm browsers turn it on.
    WARM_BROWSERS: "false",
    // Without a scheduler no tick fires, which the API tests rely on.
    SCHEDULER: options.scheduler ? "true" : "false",
    ...options.env,
  });
  const runtime = await createRuntime(
    config,
    { http: true, worker: options.worker !== undefined },
    {
      clock,
      // As `npm start` does: the tests of the demo and of browser runs drive its pages.
      demo: options.demo ?? true,
      ...(options.worker && { worker: options.worker }),
      ...(options.workerExecution && { execution: options.workerExecution }),
      ...(options.override && { app: options.override }),
      ...(options.logger && { logger: options.logger }),
      ...(options.webhooks && { webhooks: options.webhooks }),
      ...(options.scheduler && { scheduler: options.scheduler }),
      ...(options.random && { random: options.random }),
    },
  ).catch(async (error: unknown) => {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  const { url: origin = "" } = await runtime.start();
  const { repos, fileStore } = runtime;
  const signer = new VideoUrlSigner(secret, ttl, clock);
  return {
    origin,
    baseUrl: `${origin}/v1`,
    db: runtime.db,
    repos,
    worker: runtime.worker,
    scheduler: runtime.scheduler,
    databaseUrl: database.url,
    fileStore,
    keyFor: async (owner, scopes) => (await repos.apiKeys.create(owner, { scopes })).key,
    importSkills: async (owner, records) => {
      await repos.skills.importAll(owner, records);
    },
    importSkillYaml: async (owner, ...yaml) => {
      const records = yaml.map((text, i) =>
        skillRecordOf(parseSkillDefinition(text, `skill-${i}.yaml`)),
      );
      await repos.skills.importAll(owner, records);
    },
    putVideo: async (runId, bytes) => {
      await writeFile(await fileStore.pathForWriting(runId), bytes);
    },
    videoUrlFor: (runId) => signer.urlFor(origin, runId),
    putRunFile: async (runId, name, bytes, fileOptions = {}) => {
      const dir = fileStore.filesDirOf(runId);
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, name), bytes);
      const file: RunFile = {
        name,
        bytes: bytes.length,
        content_type: fileOptions.contentType ?? "application/octet-stream",
        sha256: createHash("sha256").update(bytes).digest("hex"),
        created_at: (fileOptions.createdAt ?? clock.now()).toISOString(),
      };
      await repos.runFiles.record(runId, file);
      return file;
    },
    fileUrlFor: (runId, name) => signer.fileUrlFor(origin, runId, name),
    close: async () => {
      try {
        await runtime.close({ force: true });
      } finally {
        // Whatever failed above, no test database is left behind.
        await database.drop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
