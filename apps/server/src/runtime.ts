import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { ChromiumEnv, NetworkPolicy } from "@skillrun/engine";
import type { Express } from "express";
import { type Logger, pino } from "pino";
import { type AppDeps, createApp } from "./app.js";
import type { Config } from "./config.js";
import { type Database, openDatabase } from "./db/database.js";
import { localDataDir } from "./db/database-url.js";
import { type Clock, systemClock } from "./domain/clock.js";
import { answerClientError } from "./http/client-errors.js";
import { serverUrlOf } from "./http/public-url.js";
import { networkPolicyOf, ownAddresses } from "./network-policy.js";
import { createRepositories, type Repositories } from "./repositories.js";
import { keptSigningSecret } from "./videos/signing-secret.js";
import { VideoStore } from "./videos/video-store.js";
import { browserSettingsOf } from "./worker/browser-settings.js";
import type { RunSignals } from "./worker/run-signals.js";
import { runSignalsFor } from "./worker/run-signals-for.js";
import { Worker, type WorkerOptions } from "./worker/worker.js";
import { workerOptionsOf } from "./worker/worker-options.js";

/** What a caller may supply instead of what the configuration says (tests, mostly). */
export interface RuntimeOverrides {
  /** The clock of every timestamp written; the system's by default. */
  clock?: Clock;
  logger?: Logger;
  /** Where Chromium is looked for; the configuration's CHROMIUM_PATH and PATH by default. */
  chromium?: ChromiumEnv;
  /** Where runs may connect; as ALLOW_PRIVATE_NETWORKS and ALLOWED_PRIVATE_HOSTS say by default. */
  network?: NetworkPolicy;
  /**
   * Also lets runs reach this server's own port once it is bound (PORT=0 included): the demo's
   * browser skill drives the shop the server serves at /demo/.
   */
  allowOwnAddress?: boolean;
  /** Worker options over those the configuration gives. */
  worker?: Partial<WorkerOptions>;
  /** Last word on the HTTP app's dependencies (failing repositories, …). */
  app?: (deps: AppDeps) => AppDeps;
}

/** What the runtime is made to do: serve HTTP, execute runs, both, or neither (one-off commands). */
export interface RuntimeRoles {
  http: boolean;
  /** Executes runs when the configuration's WORKER_CONCURRENCY is above 0. */
  worker: boolean;
}

/** A running Skillrun: everything `skillrun serve`, `skillrun worker` and the tests start. */
export interface Runtime {
  config: Config;
  logger: Logger;
  clock: Clock;
  db: Database;
  repos: Repositories;
  signals: RunSignals;
  videos: VideoStore;
  /** The HTTP app, when the runtime serves HTTP. */
  app: Express | undefined;
  /** The worker, when the runtime executes runs. */
  worker: Worker | undefined;
  /**
   * Listens on HOST:PORT (when serving HTTP) and starts the worker (when there is one), waiting
   * until its run processes have loaded. Resolves with the address clients reach the server at
   * (PUBLIC_URL, else the address bound).
   */
  start(): Promise<{ url: string | undefined }>;
  /**
   * Stops in order: no new HTTP connections and the worker's runs released (at once, side by
   * side), then the signals and the database. `force` also cuts open HTTP connections.
   */
  close(options?: { force?: boolean }): Promise<void>;
}

/**
 * Builds a Skillrun from its configuration: logger → database (migrated) → run signals →
 * repositories → video store → HTTP app and worker. The one place where the parts are put
 * together and taken apart again, for serve, worker, one-off commands and the tests alike.
 */
export async function createRuntime(
  config: Config,
  roles: RuntimeRoles,
  overrides: RuntimeOverrides = {},
): Promise<Runtime> {
  const logger = overrides.logger ?? pino({ level: config.LOG_LEVEL });
  const clock = overrides.clock ?? systemClock;
  const db = await openDatabase(config.DATABASE_URL);
  let signals: RunSignals;
  try {
    signals = await runSignalsFor(db, logger);
  } catch (error) {
    await db.close();
    throw error;
  }
  const repos = createRepositories(db, clock, signals);
  const videos = new VideoStore(config.VIDEO_DIR);

  const app = roles.http ? createApp(appDeps()) : undefined;
  let network = overrides.network ?? networkPolicyOf(config);
  const worker =
    roles.worker && config.WORKER_CONCURRENCY > 0
      ? new Worker(
          {
            execution: repos.runExecution,
            logger,
            clock,
            signals,
            videos,
            chromium: overrides.chromium ?? {
              CHROMIUM_PATH: config.CHROMIUM_PATH,
              PATH: config.PATH,
            },
            browser: browserSettingsOf(config),
            // Read at each run: the server's own address is known only once it listens.
            network: () => network,
          },
          { ...workerOptionsOf(config, db.flavour), ...overrides.worker },
        )
      : undefined;
  let server: Server | undefined;
  // Known once the server listens (PORT=0 picks a free port).
  let boundUrl: string | undefined;

  function appDeps(): AppDeps {
    const deps: AppDeps = {
      ...repos,
      videos,
      clock,
      logger,
      serverUrl: () => boundUrl ?? serverUrlOf(config.HOST, config.PORT),
      config: {
        bodyLimitBytes: config.BODY_LIMIT_BYTES,
        validateResponses: config.VALIDATE_RESPONSES,
        publicUrl: config.PUBLIC_URL,
        trustProxy: config.TRUST_PROXY,
        inputLimits: { maxBytes: config.INPUTS_MAX_BYTES, maxDepth: config.INPUTS_MAX_DEPTH },
        videoUrlTtlSeconds: config.VIDEO_URL_TTL_SECONDS,
        videoSigningSecret:
          config.VIDEO_SIGNING_SECRET ??
          keptSigningSecret(join(localDataDir(config.DATABASE_URL), "video-signing-secret")),
      },
    };
    return overrides.app ? overrides.app(deps) : deps;
  }

  async function listen(http: Express): Promise<string> {
    const listening = http.listen(config.PORT, config.HOST);
    server = listening;
    // Malformed requests Node refuses before Express sees them get a JSON body too.
    listening.on("clientError", answerClientError);
    await new Promise<void>((resolve, reject) => {
      listening.once("listening", resolve);
      listening.once("error", (error: NodeJS.ErrnoException) =>
        reject(
          error.code === "EADDRINUSE"
            ? new Error(`port ${config.PORT} on ${config.HOST} is in use; set PORT to another port`)
            : error,
        ),
      );
    });
    // PORT=0 picks a free port: report the one actually bound.
    const { port } = listening.address() as AddressInfo;
    if (overrides.allowOwnAddress) {
      network = networkPolicyOf(config, ownAddresses(config, port));
    }
    boundUrl = serverUrlOf(config.HOST, port);
    return config.PUBLIC_URL ?? boundUrl;
  }

  return {
    config,
    logger,
    clock,
    db,
    repos,
    signals,
    videos,
    app,
    worker,
    async start() {
      const url = app ? await listen(app) : undefined;
      worker?.start();
      // Ready means able to execute: the worker's run processes have loaded.
      await worker?.ready();
      return { url };
    },
    async close(options = {}) {
      // Runs under way go back to the queue, for the next start or another worker.
      const workerStopped = worker?.stop();
      const serverClosed = server && closeServer(server, options.force === true);
      try {
        await Promise.all([workerStopped, serverClosed]);
      } finally {
        await signals.close().catch(() => undefined);
        await db.close();
      }
    },
  };
}

function closeServer(server: Server, force: boolean): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Idle keep-alive connections would hold close() open; `force` cuts busy ones too.
  if (force) server.closeAllConnections();
  else server.closeIdleConnections();
  return closed;
}
