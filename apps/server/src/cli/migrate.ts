import { loadConfig } from "../config.js";
import { migrate } from "../db/database.js";

/** `skillrun migrate`: applies pending migrations and says which. */
export async function migrateCommand(): Promise<number> {
  const applied = await migrate(loadConfig().DATABASE_URL);
  console.log(
    applied.length === 0
      ? "Database is up to date."
      : `Applied ${applied.length} migration(s):\n${applied.map((name) => `  ${name}`).join("\n")}`,
  );
  return 0;
}
