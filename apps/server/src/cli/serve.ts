import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { pino } from "pino";
import { createApp } from "../app.js";
import { loadConfig } from "../config.js";
import { openDatabase } from "../db/database.js";
import { localDataDir } from "../db/database-url.js";
import { systemClock } from "../domain/clock.js";
import { createRepositories } from "../repositories.js";
import { keptSigningSecret } from "../videos/signing-secret.js";
import { VideoStore } from "../videos/video-store.js";
import { runSignalsFor } from "../worker/run-signals-for.js";
import { Worker } from "../worker/worker.js";
import { workerOptionsOf } from "../worker/worker-options.js";
import { DEMO_OWNER, prepareDemo } from "./demo.js";

/**
 * `skillrun serve`: migrates, listens, executes runs with an in-process worker
 * (WORKER_CONCURRENCY, 0 for none), and runs until SIGINT/SIGTERM. Returns -1 ("still
 * running") once listening; errors before that reject.
 */
export async function serve(options: { demo: boolean }): Promise<number> {
  const config = loadConfig();
  const logger = pino({ level: config.LOG_LEVEL });
  const db = await openDatabase(config.DATABASE_URL);
  const repos = createRepositories(db);

  const videoSigningSecret =
    config.VIDEO_SIGNING_SECRET ??
    keptSigningSecret(join(localDataDir(config.DATABASE_URL), "video-signing-secret"));

  const signals = await runSignalsFor(db, logger);
  const videos = new VideoStore(config.VIDEO_DIR);
  const app = createApp({
    ...repos,
    signals,
    videos,
    clock: systemClock,
    logger,
    config: {
      bodyLimitBytes: config.BODY_LIMIT_BYTES,
      validateResponses: config.VALIDATE_RESPONSES,
      publicUrl: config.PUBLIC_URL,
      videoUrlTtlSeconds: config.VIDEO_URL_TTL_SECONDS,
      videoSigningSecret,
    },
  });
  const server = app.listen(config.PORT, config.HOST);
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

  const worker =
    config.WORKER_CONCURRENCY > 0
      ? new Worker(
          { execution: repos.runExecution, logger, signals, videos, chromium: config },
          workerOptionsOf(config, db.flavour),
        )
      : undefined;
  worker?.start();

  // PORT=0 picks a free port: report the one actually bound.
  const { port } = server.address() as AddressInfo;
  const url = config.PUBLIC_URL ?? `http://${config.HOST}:${port}`;
  // After listening: the demo skills' defaults point at the address actually bound.
  const demoKey = options.demo ? await prepareDemo(repos, config.DATABASE_URL, url) : undefined;
  logger.info(
    { url, database: db.flavour, workerConcurrency: config.WORKER_CONCURRENCY },
    "skillrun listening",
  );
  console.log(
    `\nSkillrun is listening on ${url}\n  API reference:  ${url}/docs\n  API base URL:   ${url}/v1`,
  );
  if (demoKey) {
    console.log(`  API key (owner "${DEMO_OWNER}"): ${demoKey}\n`);
    console.log(`Try:\n  curl -H "Authorization: Bearer ${demoKey}" ${url}/v1/skill/list\n`);
  }

  const shutdown = (signal: string) => {
    logger.info({ signal }, "shutting down");
    // Runs under way go back to the queue, for the next start or another worker.
    const workerStopped = worker?.stop() ?? Promise.resolve();
    server.close(() => {
      workerStopped
        .finally(() => signals.close())
        .finally(() => db.close())
        .finally(() => process.exit(0));
    });
    // Idle keep-alive connections would hold close() open.
    server.closeIdleConnections();
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
  return -1;
}
