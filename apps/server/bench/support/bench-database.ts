import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseSkillDefinition } from "@skillrun/engine";
import { type Database, openDatabase } from "../../src/db/database.js";
import type { Flavour } from "../../src/db/database-url.js";
import { systemClock } from "../../src/domain/clock.js";
import { createRepositories, type Repositories } from "../../src/repositories.js";
import { skillRecordOf } from "../../src/skills/import-skills.js";
import { createTestDatabase } from "../../src/test-support/test-database.js";
import { TEST_SECRETS_KEY, testSecretBox } from "../../src/test-support/test-secrets.js";
import { InProcessRunSignals } from "../../src/worker/in-process-run-signals.js";

export const BENCH_OWNER = "bench";

/** A fresh, migrated database with the bench's skills and an API key, and what a server needs. */
export interface BenchDatabase {
  flavour: Flavour;
  url: string;
  db: Database;
  repos: Repositories;
  /** The bench owner's API key. */
  key: string;
  /** The environment a `skillrun` process on this database runs with. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

export async function benchDatabase(flavour: Flavour, skills: string[]): Promise<BenchDatabase> {
  const database = await createTestDatabase(flavour);
  const db = await openDatabase(database.url);
  const repos = createRepositories(db, systemClock, new InProcessRunSignals(), testSecretBox());
  await repos.skills.importAll(
    BENCH_OWNER,
    skills.map((yaml, i) => skillRecordOf(parseSkillDefinition(yaml, `bench-${i}.yaml`))),
  );
  const { key } = await repos.apiKeys.create(BENCH_OWNER);
  const dataDir = mkdtempSync(join(tmpdir(), "skillrun-bench-"));
  return {
    flavour,
    url: database.url,
    db,
    repos,
    key,
    env: {
      DATABASE_URL: database.url,
      SECRETS_KEY: TEST_SECRETS_KEY,
      VIDEO_DIR: join(dataDir, "videos"),
      VIDEO_SIGNING_SECRET: "bench-video-signing-secret-0123456789abcdef",
    },
    drop: async () => {
      await db.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
