import { pino } from "pino";
import { loadConfig } from "../config.js";
import { openDatabase } from "../db/database.js";
import { createRepositories } from "../repositories.js";
import { VideoStore } from "../videos/video-store.js";
import { runSignalsFor } from "../worker/run-signals-for.js";
import { Worker } from "../worker/worker.js";
import { workerOptionsOf } from "../worker/worker-options.js";

/**
 * `skillrun worker`: executes queued runs without serving HTTP, until SIGINT/SIGTERM; then its
 * runs under way go back to the queue. Returns -1 ("still running") once started.
 */
export async function workerCommand(): Promise<number> {
  const config = loadConfig();
  if (config.WORKER_CONCURRENCY < 1) {
    throw new Error("WORKER_CONCURRENCY must be at least 1 for skillrun worker");
  }
  const logger = pino({ level: config.LOG_LEVEL });
  const db = await openDatabase(config.DATABASE_URL);
  const repos = createRepositories(db);
  const signals = await runSignalsFor(db, logger);
  const worker = new Worker(
    {
      execution: repos.runExecution,
      logger,
      signals,
      videos: new VideoStore(config.VIDEO_DIR),
      chromium: config,
    },
    workerOptionsOf(config, db.flavour),
  );
  worker.start();
  console.log(
    `Skillrun worker ${worker.id} is executing runs (${config.WORKER_CONCURRENCY} at a time) from ${db.flavour}`,
  );

  const shutdown = (signal: string) => {
    logger.info({ signal }, "shutting down");
    worker
      .stop()
      .finally(() => signals.close())
      .finally(() => db.close())
      .finally(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
  return -1;
}
