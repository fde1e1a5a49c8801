import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { type AppDeps, createApp } from "../app.js";
import { type Database, openDatabase } from "../db/database.js";
import type { SkillRecord } from "../db/repositories/skills.js";
import { type Clock, systemClock } from "../domain/clock.js";
import { createRepositories, type Repositories } from "../repositories.js";

export interface TestServer {
  /** e.g. http://127.0.0.1:40123 */
  origin: string;
  /** origin + /v1 */
  baseUrl: string;
  db: Database;
  repos: Repositories;
  /** Creates an API key for `owner` and returns it. */
  keyFor(owner: string): Promise<string>;
  importSkills(owner: string, records: SkillRecord[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * The real server over real HTTP on a random loopback port, with a fresh SQLite file, responses
 * validated against openapi.yaml.
 */
export async function startTestServer(
  options: { clock?: Clock; override?: (deps: AppDeps) => AppDeps } = {},
): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), "skillrun-test-"));
  const db = await openDatabase(`file:${join(dir, "skillrun.db")}`);
  const repos = createRepositories(db, options.clock ?? systemClock);
  let deps: AppDeps = {
    ...repos,
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
    config: { bodyLimitBytes: 1024 * 1024, validateResponses: true, publicUrl: undefined },
  };
  if (options.override) deps = options.override(deps);
  const app = createApp(deps);
  const server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    baseUrl: `${origin}/v1`,
    db,
    repos,
    keyFor: async (owner) => (await repos.apiKeys.create(owner)).key,
    importSkills: async (owner, records) => {
      await repos.skills.importAll(owner, records);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
