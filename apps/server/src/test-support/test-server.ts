import { mkdtempSync, rmSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseSkillDefinition } from "@skillrun/engine";
import { pino } from "pino";
import { type AppDeps, createApp } from "../app.js";
import { type Database, openDatabase } from "../db/database.js";
import type { SkillRecord } from "../db/repositories/skills.js";
import { type Clock, systemClock } from "../domain/clock.js";
import { createRepositories, type Repositories } from "../repositories.js";
import { skillRecordOf } from "../skills/import-skills.js";
import { VideoUrlSigner } from "../videos/signed-url.js";
import { VideoStore } from "../videos/video-store.js";
import { runSignalsFor } from "../worker/run-signals-for.js";
import { DEFAULT_WORKER_OPTIONS, Worker, type WorkerOptions } from "../worker/worker.js";
import { createTestDatabase } from "./test-database.js";

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
  /** The Chromium the worker's browser steps launch; found as in production when absent. */
  chromiumPath?: string;
  /** Last word on the app's dependencies (failing repositories, PUBLIC_URL, …). */
  override?: (deps: AppDeps) => AppDeps;
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
  /** The database's DATABASE_URL, for worker processes a test starts beside the server. */
  databaseUrl: string;
  /** The video store, in a fresh folder (not created until a video is written). */
  videos: VideoStore;
  /** Creates an API key for `owner` and returns it. */
  keyFor(owner: string): Promise<string>;
  importSkills(owner: string, records: SkillRecord[]): Promise<void>;
  /** Imports skill definitions written in YAML, as `skillrun skills import` would. */
  importSkillYaml(owner: string, ...yaml: string[]): Promise<void>;
  /** Writes `bytes` as the run's video. */
  putVideo(runId: string, bytes: Uint8Array): Promise<void>;
  /** A signed address of the run's video on this server, made as the server makes them. */
  videoUrlFor(runId: string): string;
  close(): Promise<void>;
}

/**
 * The real server over real HTTP on a random loopback port, with a fresh database of the tests'
 * flavour (TEST_FLAVOUR: a SQLite file, or a throwaway PostgreSQL database) and video folder,
 * responses validated against openapi.yaml.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), "skillrun-test-"));
  const database = await createTestDatabase();
  const databaseUrl = database.url;
  const db = await openDatabase(databaseUrl).catch(async (error: unknown) => {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  const clock = options.clock ?? systemClock;
  const repos = createRepositories(db, clock);
  const videos = new VideoStore(join(dir, "videos"));
  const secret = options.videoSigningSecret ?? TEST_VIDEO_SECRET;
  const ttl = options.videoUrlTtlSeconds ?? 3600;
  const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });
  // As in production: LISTEN/NOTIFY on PostgreSQL, within the process on SQLite.
  const signals = await runSignalsFor(db, logger);
  let deps: AppDeps = {
    ...repos,
    signals,
    videos,
    clock,
    logger,
    config: {
      bodyLimitBytes: 1024 * 1024,
      validateResponses: true,
      publicUrl: undefined,
      videoUrlTtlSeconds: ttl,
      videoSigningSecret: secret,
    },
  };
  if (options.override) deps = options.override(deps);
  const app = createApp(deps);
  const server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const signer = new VideoUrlSigner(secret, ttl, clock);
  const worker = options.worker
    ? new Worker(
        {
          execution: repos.runExecution,
          logger,
          signals,
          videos,
          chromium: {
            CHROMIUM_PATH: options.chromiumPath ?? process.env.CHROMIUM_PATH,
            PATH: process.env.PATH,
          },
        },
        { ...DEFAULT_WORKER_OPTIONS, ...options.worker },
      )
    : undefined;
  worker?.start();
  return {
    origin,
    baseUrl: `${origin}/v1`,
    db,
    repos,
    worker,
    databaseUrl,
    videos,
    keyFor: async (owner) => (await repos.apiKeys.create(owner)).key,
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
      await writeFile(await videos.pathForWriting(runId), bytes);
    },
    videoUrlFor: (runId) => signer.urlFor(origin, runId),
    close: async () => {
      try {
        await worker?.stop();
        await signals.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await db.close();
      } finally {
        // Whatever failed above, no test database is left behind.
        await database.drop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
