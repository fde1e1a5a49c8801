import type { Config } from "../config.js";
import { DEFAULT_WORKER_OPTIONS, type WorkerOptions } from "./worker.js";

/** A worker's options as the configuration sets them. */
export function workerOptionsOf(config: Config): WorkerOptions {
  return {
    ...DEFAULT_WORKER_OPTIONS,
    concurrency: config.WORKER_CONCURRENCY,
    leaseMs: config.WORKER_LEASE_SECONDS * 1000,
    pollMs: config.WORKER_POLL_MS,
  };
}
