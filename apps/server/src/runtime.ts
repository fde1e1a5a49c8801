import { setMaxListeners } from "node:events";
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
import type { RunExecutionRepository } from "./db/repositories/run-execution.js";
import { type Clock, systemClock } from "./domain/clock.js";
import { FileStore } from "./files/file-store.js";
import { Retention } from "./files/retention.js";
import { keptSigningSecret } from "./files/signing-secret.js";
import { answerClientError } from "./http/client-errors.js";
import { serverUrlOf } from "./http/public-url.js";
import { closeable, type ServerClosing } from "./http/server-closing.js";
import { Metrics } from "./metrics/metrics.js";
import { listenForMetrics, type MetricsServer } from "./metrics/metrics-server.js";
import { networkPolicyOf, ownAddresses } from "./network-policy.js";
import { createRepositories, type Repositories } from "./repositories.js";
import {
  DEFAULT_SCHEDULER_OPTIONS,
  Scheduler,
  type SchedulerOptions,
} from "./schedules/scheduler.js";
import { RunSecrets } from "./secrets/run-secrets.js";
import { SecretBox } from "./secrets/secret-box.js";
import { keptSecretsKey, parseSecretsKey } from "./secrets/secrets-key.js";
import { loadTracing, type Tracing } from "./tracing/tracing.js";
import {
  DEFAULT_WEBHOOK_SENDER_OPTIONS,
  WebhookSender,
  type WebhookSenderOptions,
} from "./webhooks/webhook-sender.js";
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
  /**
   * Serves the demo site (the shop and the back office) at /demo/: `skillrun serve --demo` (and
   * so `npm start`) and the tests do; a deployment does not, so its origin serves no demo pages.
   */
  demo?: boolean;
  /** Worker options over those the configuration gives. */
  worker?: Partial<WorkerOptions>;
  /** The repository the worker writes runs through, made from the database's (tests slow it). */
  execution?: (repository: RunExecutionRepository) => RunExecutionRepository;
  /** Last word on the HTTP app's dependencies (failing repositories, …). */
  app?: (deps: AppDeps) => AppDeps;
  /** Webhook sender options over the defaults (tests shorten the retry schedule). */
  webhooks?: Partial<WebhookSenderOptions>;
  /** Scheduler options over the defaults (tests poll rarely and drive rounds themselves). */
  scheduler?: Partial<SchedulerOptions>;
  /** Draws schedules' jitter; Math.random by default. */
  random?: () => number;
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
  fileStore: FileStore;
  /** The HTTP app, when the runtime serves HTTP. */
  app: Express | undefined;
  /** The worker, when the runtime executes runs. */
  worker: Worker | undefined;
  /** The webhook delivery loop, when this process sends deliveries (WEBHOOK_DELIVERY). */
  webhookSender: WebhookSender | undefined;
  /** The schedules' tick loop, when this process fires ticks (SCHEDULER). */
  scheduler: Scheduler | undefined;
  /** What this process reports at GET /metrics. */
  metrics: Metrics;
  /**
   * The port a process without HTTP answers GET /metrics on (METRICS_PORT), once started;
   * undefined otherwise.
   */
  metricsPort(): number | undefined;
  /**
   * Listens on HOST:PORT (when serving HTTP) and starts the worker (when there is one), waiting
   * until its run processes have loaded. Resolves with the address clients reach the server at
   * (PUBLIC_URL, else the address bound).
   */
  start(): Promise<{ url: string | undefined }>;
  /**
   * Stops at once to accept HTTP connections and to claim runs; answers the requests in flight
   * while the runs under way go on for up to `graceMs` (default 0), after which those left are
   * put back in the queue; then closes the signals and the database. `force` cuts open HTTP
   * connections and releases the runs at once, also when a close is under way already.
   */
  close(options?: { graceMs?: number; force?: boolean }): Promise<void>;
}

/**
 * Builds a Skillrun from its configuration: secrets key → logger → database (migrated) → run
 * signals → repositories → file store → HTTP app and worker. The one place where the parts are put
 * together and taken apart again, for serve, worker, one-off commands and the tests alike.
 */
export async function createRuntime(
  config: Config,
  roles: RuntimeRoles,
  overrides: RuntimeOverrides = {},
): Promise<Runtime> {
  const secretBox = secretBoxOf(config);
  // Serving and executing need the key: a missing or unusable key file stops them here. One-off
  // commands load it when they first seal or open a value.
  if (roles.http || roles.worker) secretBox.load();
  const logger = overrides.logger ?? pino({ level: config.LOG_LEVEL });
  const clock = overrides.clock ?? systemClock;
  // Before the parts that trace; undefined (and OpenTelemetry not loaded) when tracing is off.
  const tracing = roles.http || roles.worker ? await loadTracing(config) : undefined;
  const db = await openDatabase(config.DATABASE_URL);
  let signals: RunSignals;
  try {
    signals = await runSignalsFor(db, logger, { streams: roles.http });
  } catch (error) {
    await db.close();
    throw error;
  }
  const repos = createRepositories(
    db,
    clock,
    signals,
    secretBox,
    {
      ownerMaxRunning: config.OWNER_MAX_RUNNING ?? null,
      ownerMaxQueued: config.OWNER_MAX_QUEUED ?? null,
    },
    config.OWNER_STORAGE_MAX_BYTES ?? null,
    { maxBytes: config.PROFILE_MAX_BYTES, perOwner: config.PROFILES_PER_OWNER },
    config.SCHEDULES_PER_OWNER,
  );
  const fileStore = new FileStore(config.VIDEO_DIR);
  const metrics = new Metrics();
  // The queue is the database's: every process reports the same depth.
  metrics.queuedRuns(() => repos.runs.countAllQueued());
  repos.runs.endings = metrics;
  repos.runExecution.endings = metrics;
  const parts = {
    ...{ config, overrides, logger, clock, db, signals, repos, fileStore, secretBox },
    metrics,
    tracing,
  };

  // Webhook deliveries follow the rules of runs' http steps, without this server's own address.
  const webhookNetwork = overrides.network ?? networkPolicyOf(config);
  // Ends live event streams when the server shuts down: draining waits for every request.
  const shutdown = new AbortController();
  // Every open stream listens for it (OWNER_MAX_STREAMS per owner, many owners): not a leak.
  setMaxListeners(0, shutdown.signal);
  const listening: Listening = {};
  const app = roles.http
    ? buildApp(parts, { network: webhookNetwork, shutdown: shutdown.signal, listening })
    : undefined;
  // Runs' own policy: the same, until the demo adds this server's address once it listens.
  let network = webhookNetwork;
  const worker =
    roles.worker && config.WORKER_CONCURRENCY > 0 ? buildWorker(parts, () => network) : undefined;
  if (worker) {
    const total = config.WORKER_CONCURRENCY;
    metrics.workerSlots(() => ({ busy: worker.busy, total }));
  }
  // A process without the API (`skillrun worker`) answers GET /metrics on a port of its own.
  let metricsServer: MetricsServer | undefined;
  const webhookSender =
    (roles.http || roles.worker) && config.WEBHOOK_DELIVERY
      ? buildWebhookSender(parts, webhookNetwork)
      : undefined;
  const scheduler =
    (roles.http || roles.worker) && config.SCHEDULER ? buildScheduler(parts) : undefined;

  return {
    config,
    logger,
    clock,
    db,
    repos,
    signals,
    fileStore,
    app,
    worker,
    webhookSender,
    scheduler,
    metrics,
    metricsPort: () => metricsServer?.port,
    async start() {
      let url: string | undefined;
      if (app) {
        const port = await listen(app, config, listening);
        if (overrides.allowOwnAddress) {
          network = networkPolicyOf(config, ownAddresses(config, port));
        }
        listening.url = serverUrlOf(config.HOST, port);
        url = config.PUBLIC_URL ?? listening.url;
      }
      if (!app && roles.worker && config.METRICS_PORT !== undefined) {
        const { METRICS_TOKEN: token, HOST: host, METRICS_PORT: port } = config;
        metricsServer = await listenForMetrics(metrics, token, host, port);
      }
      worker?.start();
      webhookSender?.start();
      scheduler?.start();
      // Ready means able to execute: the worker's run processes have loaded.
      await worker?.ready();
      return { url };
    },
    close: closer({
      ...parts,
      ...{ worker, webhookSender, scheduler, shutdown, listening },
      metricsServer: () => metricsServer,
    }),
  };
}

/** The parts every role shares, from which the HTTP app and the worker are built. */
interface RuntimeParts {
  config: Config;
  overrides: RuntimeOverrides;
  logger: Logger;
  clock: Clock;
  db: Database;
  signals: RunSignals;
  repos: Repositories;
  fileStore: FileStore;
  secretBox: SecretBox;
  metrics: Metrics;
  tracing: Tracing | undefined;
}

/** The secrets key: SECRETS_KEY, else the key file kept beside a local database. */
function secretBoxOf(config: Config): SecretBox {
  return new SecretBox(() =>
    config.SECRETS_KEY === undefined
      ? keptSecretsKey(join(localDataDir(config.DATABASE_URL), "secrets-key"))
      : parseSecretsKey(config.SECRETS_KEY),
  );
}

/** What is known once the server listens (PORT=0 picks a free port). */
interface Listening {
  server?: ServerClosing;
  /** The address bound, as clients would reach it without PUBLIC_URL. */
  url?: string;
}

/** The HTTP app, from the shared parts (and what `overrides.app` changes of its dependencies). */
function buildApp(
  parts: RuntimeParts,
  serving: { network: NetworkPolicy; shutdown: AbortSignal; listening: Listening },
): Express {
  const { config, overrides, logger, clock, db, signals, repos, fileStore, metrics } = parts;
  const deps: AppDeps = {
    ...repos,
    ...(parts.tracing && { tracing: parts.tracing }),
    runSecrets: new RunSecrets(repos.secrets, parts.secretBox),
    queuedWakes: (listener) => signals.onQueued(listener),
    fileStore,
    clock,
    logger,
    metrics,
    network: () => serving.network,
    serverUrl: () => serving.listening.url ?? serverUrlOf(config.HOST, config.PORT),
    config: {
      bodyLimitBytes: config.BODY_LIMIT_BYTES,
      skillCheckBudgetMs: config.SKILL_CHECK_BUDGET_MS,
      demo: overrides.demo ?? false,
      validateResponses: config.VALIDATE_RESPONSES,
      publicUrl: config.PUBLIC_URL,
      trustProxy: config.TRUST_PROXY,
      inputLimits: { maxBytes: config.INPUTS_MAX_BYTES, maxDepth: config.INPUTS_MAX_DEPTH },
      videoUrlTtlSeconds: config.VIDEO_URL_TTL_SECONDS,
      videoSigningSecret:
        config.VIDEO_SIGNING_SECRET ??
        keptSigningSecret(join(localDataDir(config.DATABASE_URL), "video-signing-secret")),
      fileMaxBytes: config.FILE_MAX_BYTES,
      rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE,
      eventStream: {
        // PostgreSQL wakes streams as soon as what they read is written; the poll is a safety
        // net there (a lost notification connection). SQLite has no notifications.
        pollMs: config.STREAM_POLL_MS ?? (db.flavour === "postgres" ? 2000 : 250),
        heartbeatMs: config.STREAM_HEARTBEAT_SECONDS * 1000,
        maxPerOwner: config.OWNER_MAX_STREAMS,
        maxBufferedBytes: config.STREAM_MAX_BUFFERED_BYTES,
      },
      scheduleMinIntervalMs: config.SCHEDULE_MIN_INTERVAL_SECONDS * 1000,
      metricsToken: config.METRICS_TOKEN,
      leaseMs: config.WORKER_LEASE_SECONDS * 1000,
      runFilesMaxBytes: config.RUN_FILES_MAX_BYTES,
    },
    shutdown: serving.shutdown,
    streamWakes: (listener) => signals.onStreamWake(listener),
    ...(overrides.random && { random: overrides.random }),
  };
  return createApp(overrides.app ? overrides.app(deps) : deps);
}

/** The worker, from the shared parts; `network`: where runs may connect, read at each claim. */
function buildWorker(parts: RuntimeParts, network: () => NetworkPolicy): Worker {
  const { config, overrides, logger, clock, db, signals, repos, fileStore, secretBox } = parts;
  return new Worker(
    {
      execution: overrides.execution?.(repos.runExecution) ?? repos.runExecution,
      logger,
      metrics: parts.metrics,
      ...(parts.tracing && { tracing: parts.tracing }),
      clock,
      signals,
      fileStore,
      chromium: overrides.chromium ?? { CHROMIUM_PATH: config.CHROMIUM_PATH, PATH: config.PATH },
      browser: browserSettingsOf(config),
      // Read at each run: the server's own address is known only once it listens.
      network,
      secrets: new RunSecrets(repos.secrets, secretBox),
      profiles: repos.profiles,
      files: { runFiles: repos.runFiles, uploads: repos.uploads, maxBytes: config.FILE_MAX_BYTES },
      liveViews: repos.liveViews,
      retention: new Retention({
        retention: repos.retention,
        runFiles: repos.runFiles,
        uploads: repos.uploads,
        fileStore,
        clock,
        logger,
        days: config.RETENTION_DAYS,
      }),
    },
    { ...workerOptionsOf(config, db.flavour), ...overrides.worker },
  );
}

/** The webhook delivery loop; deliveries may go where runs' http steps may. */
function buildWebhookSender(
  { overrides, logger, clock, repos, secretBox, metrics }: RuntimeParts,
  network: NetworkPolicy,
): WebhookSender {
  return new WebhookSender(
    {
      ...{ deliveries: repos.webhookDeliveries, box: secretBox, clock, logger, metrics },
      network: () => network,
    },
    { ...DEFAULT_WEBHOOK_SENDER_OPTIONS, ...overrides.webhooks },
  );
}

/** The schedules' tick loop; its runs are checked and queued as POST /run/ queues them. */
function buildScheduler({ config, overrides, logger, clock, repos }: RuntimeParts): Scheduler {
  return new Scheduler(
    {
      schedules: repos.schedules,
      skills: repos.skills,
      runs: repos.runs,
      uploads: repos.uploads,
      inputLimits: { maxBytes: config.INPUTS_MAX_BYTES, maxDepth: config.INPUTS_MAX_DEPTH },
      clock,
      logger,
      ...(overrides.random && { random: overrides.random }),
    },
    { ...DEFAULT_SCHEDULER_OPTIONS, ...overrides.scheduler },
  );
}

/** Listens on HOST:PORT; resolves with the port bound. `listening.server` is set at once. */
async function listen(http: Express, config: Config, listening: Listening): Promise<number> {
  const server: Server = http.listen(config.PORT, config.HOST);
  listening.server = closeable(server);
  // Malformed requests Node refuses before Express sees them get a JSON body too.
  server.on("clientError", answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "EADDRINUSE"
          ? new Error(`port ${config.PORT} on ${config.HOST} is in use; set PORT to another port`)
          : error,
      ),
    );
  });
  // PORT=0 picks a free port: report the one actually bound.
  return (server.address() as AddressInfo).port;
}

/** The runtime's `close` (see Runtime.close); a second call joins the first, or hurries it. */
function closer(parts: {
  logger: Logger;
  db: Database;
  signals: RunSignals;
  worker: Worker | undefined;
  webhookSender: WebhookSender | undefined;
  scheduler: Scheduler | undefined;
  shutdown: AbortController;
  listening: Listening;
  metricsServer: () => MetricsServer | undefined;
  tracing: Tracing | undefined;
}): Runtime["close"] {
  const { logger, db, signals, worker, webhookSender, scheduler, shutdown, listening } = parts;
  let closing: Promise<void> | undefined;
  return (options = {}) => {
    const force = options.force === true;
    const { server } = listening;
    if (closing !== undefined) {
      // Stop at once: what the close under way still waits for is cut short.
      if (force) {
        void server?.close({ force });
        void worker?.stop(0);
        void webhookSender?.stop({ now: true });
      }
      return closing;
    }
    closing = (async () => {
      shutdown.abort();
      // Both at once: no new connection, no new claim. The runs under way go on meanwhile, and
      // what they are not given time to finish goes back to the queue.
      const serverClosed = server?.close({ force });
      if (server) {
        const n = server.inFlight;
        logger.info(
          { inFlight: n },
          `no longer accepting connections; answering ${n === 1 ? "1 request" : `${n} requests`} in flight`,
        );
        void serverClosed?.then(() => logger.info("HTTP server closed"));
      }
      // No tick is fired once closing begins; the round under way finishes its write.
      const schedulerStopped = scheduler?.stop();
      const workerStopped = worker?.stop(force ? 0 : (options.graceMs ?? 0));
      // The sender goes on while runs drain, so that their endings are told, then lets its
      // attempts in flight finish (10 s at most) and records them before the database closes.
      const sendersStopped = Promise.resolve(workerStopped)
        .catch(() => undefined)
        .then(() => webhookSender?.stop({ now: force }));
      try {
        await Promise.all([serverClosed, workerStopped, sendersStopped, schedulerStopped]);
      } finally {
        // Scraped until the runs have drained; closed with the database whose queue it reads.
        await parts.metricsServer()?.close();
        // The last spans (the runs drained, the requests answered) are sent before exiting.
        await parts.tracing?.tracer.shutdown().catch(() => undefined);
        await signals.close().catch(() => undefined);
        await db.close();
      }
    })();
    return closing;
  };
}
