import { loadConfig } from "../config.js";
import { DEMO_OWNER, prepareDemo } from "../demo/prepare-demo.js";
import { createRuntime } from "../runtime.js";
import { stopOnSignal } from "./stop-on-signal.js";

/**
 * `skillrun serve`: migrates, listens, executes runs with an in-process worker
 * (WORKER_CONCURRENCY, 0 for none), and runs until SIGINT/SIGTERM; then it stops accepting
 * connections and claiming runs, answers the requests in flight and drains its runs. Returns -1
 * ("still running") once listening; errors before that reject.
 */
export async function serve(options: { demo: boolean }): Promise<number> {
  const config = loadConfig();
  // The demo's browser skill drives the shop this server serves: its own address is allowed.
  const runtime = await createRuntime(
    config,
    { http: true, worker: true },
    { allowOwnAddress: options.demo, demo: options.demo },
  );
  const { url = "" } = await runtime.start();
  // After listening: the demo skills' defaults point at the address actually bound.
  const demoKey = options.demo
    ? await prepareDemo(runtime.repos, config.DATABASE_URL, url)
    : undefined;
  runtime.logger.info(
    { url, database: runtime.db.flavour, workerConcurrency: config.WORKER_CONCURRENCY },
    "skillrun listening",
  );
  console.log(
    `\nSkillrun is listening on ${url}\n  Dashboard:      ${url}/ui/\n  API reference:  ${url}/docs\n  API base URL:   ${url}/v1`,
  );
  if (demoKey) {
    console.log(`  API key (owner "${DEMO_OWNER}"): ${demoKey}\n`);
    console.log(`Try:\n  curl -H "Authorization: Bearer ${demoKey}" ${url}/v1/skill/list\n`);
  }
  // Runs under way get SHUTDOWN_GRACE_SECONDS to finish; a second signal releases them at once.
  const graceMs = config.SHUTDOWN_GRACE_SECONDS * 1000;
  stopOnSignal(runtime.logger, ({ now }) => runtime.close({ graceMs, force: now }));
  return -1;
}
