import { type Database, openDatabase } from "../db/database.js";
import type { Clock } from "../domain/clock.js";
import { NO_QUEUE_LIMITS, type QueueLimits } from "../domain/queue-limits.js";
import { createRepositories, type Repositories } from "../repositories.js";
import { InProcessRunSignals } from "../worker/in-process-run-signals.js";
import { createTestDatabase } from "./test-database.js";
import { testSecretBox } from "./test-secrets.js";

/** The repositories over a fresh database of TEST_FLAVOUR, with alice's skill `skill_a`. */
export interface TestRepositories {
  db: Database;
  repos: Repositories;
  /** Closes the database and drops it. */
  close(): Promise<void>;
}

/**
 * Opens a fresh test database and the repositories over it, writing `clock`'s time, the queue
 * keeping to `limits`.
 */
export async function openTestRepositories(
  clock: Clock,
  limits: QueueLimits = NO_QUEUE_LIMITS,
): Promise<TestRepositories> {
  const database = await createTestDatabase();
  const db = await openDatabase(database.url);
  const repos = createRepositories(db, clock, new InProcessRunSignals(), testSecretBox(), limits);
  await repos.skills.importAll("alice", [
    {
      id: "skill_a",
      name: "A",
      description: null,
      inputs: [],
      definition: {},
      definitionHash: "h",
    },
  ]);
  return {
    db,
    repos,
    async close() {
      await db.close();
      await database.drop();
    },
  };
}
