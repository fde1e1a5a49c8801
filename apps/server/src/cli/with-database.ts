import { loadConfig } from "../config.js";
import { openDatabase } from "../db/database.js";
import { createRepositories, type Repositories } from "../repositories.js";

/** Runs a one-off command against the configured database (migrated first), then closes it. */
export async function withRepositories<T>(work: (repos: Repositories) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const db = await openDatabase(config.DATABASE_URL);
  try {
    return await work(createRepositories(db));
  } finally {
    await db.close();
  }
}
