import { loadConfig } from "../config.js";
import type { Repositories } from "../repositories.js";
import { createRuntime } from "../runtime.js";

/** Runs a one-off command against the configured database (migrated first), then closes it. */
export async function withRepositories<T>(work: (repos: Repositories) => Promise<T>): Promise<T> {
  const runtime = await createRuntime(loadConfig(), { http: false, worker: false });
  try {
    return await work(runtime.repos);
  } finally {
    await runtime.close();
  }
}
