import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import BetterSqlite3 from "better-sqlite3";
import { PrismaClient } from "../generated/sqlite/client/client.js";
import { paths } from "../paths.js";
import { type Flavour, flavourOf, sqlitePath } from "./database-url.js";
import { applyMigrations, readMigrations } from "./migrations.js";
import { sqliteMigrationDriver } from "./sqlite-migration-driver.js";

export type { PrismaClient };

/** An open database: the Prisma client the repositories use, and how to close it. */
export interface Database {
  flavour: Flavour;
  prisma: PrismaClient;
  close(): Promise<void>;
}

// How long a SQLite writer waits for another one before failing with SQLITE_BUSY.
const SQLITE_BUSY_TIMEOUT_MS = 10_000;

/** Applies pending migrations to the database at `url`; returns the names applied. */
export async function migrate(url: string): Promise<string[]> {
  const flavour = flavourOf(url);
  if (flavour !== "sqlite") throw new Error("PostgreSQL is not supported yet");
  const file = sqlitePath(url);
  mkdirSync(dirname(file), { recursive: true });
  const db = new BetterSqlite3(file, { timeout: SQLITE_BUSY_TIMEOUT_MS });
  try {
    // WAL lets readers go on while a writer writes; the mode is stored in the file itself.
    db.pragma("journal_mode = WAL");
    return await applyMigrations(
      sqliteMigrationDriver(db),
      readMigrations(paths.migrations(flavour)),
    );
  } finally {
    db.close();
  }
}

/** Opens the database at `url`, creating and migrating it first unless told not to. */
export async function openDatabase(
  url: string,
  options: { migrate: boolean } = { migrate: true },
): Promise<Database> {
  const flavour = flavourOf(url);
  if (options.migrate) await migrate(url);
  const adapter = new PrismaBetterSqlite3({
    url: sqlitePath(url),
    timeout: SQLITE_BUSY_TIMEOUT_MS,
  });
  const prisma = new PrismaClient({ adapter });
  return { flavour, prisma, close: () => prisma.$disconnect() };
}
