import { loadConfig } from "../config.js";
import { createRuntime } from "../runtime.js";
import { stopOnSignal } from "./stop-on-signal.js";

/**
 * `skillrun worker`: executes queued runs without serving HTTP, until SIGINT/SIGTERM; then its
 * runs under way go back to the queue. Returns -1 ("still running") once started.
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
  stopOnSignal(runtime.logger, () => runtime.close());
  return -1;
}
