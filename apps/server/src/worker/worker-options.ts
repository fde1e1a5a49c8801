import type { Config } from "../config.js";
import type { Flavour } from "../db/database-url.js";
import { DEFAULT_WORKER_OPTIONS, type WorkerOptions } from "./worker.js";

// With PostgreSQL every new run is announced (LISTEN/NOTIFY), so polling is only a safety net for
// a lost signal connection; with SQLite polling is how other processes' runs are found.
const POLL_MS: Record<Flavour, number> = { sqlite: 250, postgres: 5000 };

/** A worker's options as the configuration sets them, for a database of `flavour`. */
export function workerOptionsOf(config: Config, flavour: Flavour): WorkerOptions {
  return {
    ...DEFAULT_WORKER_OPTIONS,
    concurrency: config.WORKER_CONCURRENCY,
    leaseMs: config.WORKER_LEASE_SECONDS * 1000,
    pollMs: config.WORKER_POLL_MS ?? POLL_MS[flavour],
    memoryMb: config.RUN_MEMORY_MB,
    stopGraceMs: config.RUN_STOP_GRACE_MS,
    checkpointMaxBytes: config.RUN_CHECKPOINT_MAX_BYTES,
    parkAfterMs: config.PARK_AFTER_SECONDS * 1000,
    limits: {
      dataBytes: config.RUN_DATA_MAX_BYTES,
      httpResponseBytes: config.RUN_HTTP_RESPONSE_MAX_BYTES,
      downloadBytes: config.RUN_DOWNLOAD_MAX_BYTES,
      runFilesBytes: config.RUN_FILES_MAX_BYTES,
      varsBytes: config.RUN_VARS_MAX_BYTES,
      steps: config.RUN_MAX_STEPS,
    },
    eventLimits: {
      maxEvents: config.RUN_MAX_EVENTS,
      messageBytes: config.RUN_EVENT_MESSAGE_MAX_BYTES,
      dataValueBytes: config.RUN_EVENT_DATA_VALUE_MAX_BYTES,
    },
  };
}
