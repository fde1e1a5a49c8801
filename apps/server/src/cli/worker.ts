import { loadConfig } from "../config.js";
import { createRuntime } from "../runtime.js";
import { stopOnSignal } from "./stop-on-signal.js";

/**
 * `skillrun worker`: executes queued runs without serving HTTP, until SIGINT/SIGTERM; then it
 * claims no more, lets its runs under way go on for SHUTDOWN_GRACE_SECONDS and puts those left
 * back in the queue. Returns -1 ("still running") once started.
 */
export async function workerCommand(): Promise<number> {
  const config = loadConfig();
  if (config.WORKER_CONCURRENCY < 1) {
    throw new Error("WORKER_CONCURRENCY must be at least 1 for skillrun worker");
  }
  const runtime = await createRuntime(config, { http: false, worker: true });
  await runtime.start();
  console.log(
    `Skillrun worker ${runtime.worker?.id} is executing runs (${config.WORKER_CONCURRENCY} at a time) from ${runtime.db.flavour}`,
  );
  const metricsPort = runtime.metricsPort();
  if (metricsPort !== undefined) {
    console.log(`  Metrics: http://${config.HOST}:${metricsPort}/metrics`);
  }
  // Runs under way get SHUTDOWN_GRACE_SECONDS to finish; a second signal releases them at once.
  const graceMs = config.SHUTDOWN_GRACE_SECONDS * 1000;
  stopOnSignal(runtime.logger, ({ now }) => runtime.close({ graceMs, force: now }));
  return -1;
}
