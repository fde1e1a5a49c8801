import { dirname } from "node:path";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { PrismaClient as PostgresPrismaClient } from "../generated/postgres/client/client.js";
import { PrismaClient } from "../generated/sqlite/client/client.js";
import { paths } from "../paths.js";
import { makePrivateDatabaseFile, makePrivateDir } from "../private-files.js";
import { type Flavour, flavourOf, sqlitePath } from "./database-url.js";
import { applyMigrations, type Migration, readMigrations } from "./migrations.js";
import { postgresMigrationDriver } from "./postgres-migration-driver.js";
import { sqliteMigrationDriver } from "./sqlite-migration-driver.js";

/**
 * The Prisma client type the repositories are written against. Both flavours' clients are
 * generated from the same models (prisma/models.prisma), so their model APIs are the same; the
 * SQLite one serves as the type of either.
 */
export type { PrismaClient };

/** An open database: the Prisma client the repositories use, and how to close it. */
export interface Database {
  flavour: Flavour;
  /** The DATABASE_URL it was opened with (for connections outside Prisma, e.g. LISTEN). */
  url: string;
  prisma: PrismaClient;
  close(): Promise<void>;
}

// How long a SQLite writer waits for another one before failing with SQLITE_BUSY.
const SQLITE_BUSY_TIMEOUT_MS = 10_000;

// Connections each process keeps to PostgreSQL at most (node-postgres' default is 10 too). The
// worker, the API and the lease renewals share them; several servers multiply it.
const POSTGRES_POOL_SIZE = 10;

/** Applies pending migrations to the database at `url`; returns the names applied. */
export async function migrate(url: string): Promise<string[]> {
  const flavour = flavourOf(url);
  const migrations = readMigrations(paths.migrations(flavour));
  return flavour === "sqlite" ? migrateSqlite(url, migrations) : migratePostgres(url, migrations);
}

async function migrateSqlite(url: string, migrations: Migration[]): Promise<string[]> {
  const file = sqlitePath(url);
  makePrivateDir(dirname(file));
  makePrivateDatabaseFile(file);
  const db = new BetterSqlite3(file, { timeout: SQLITE_BUSY_TIMEOUT_MS });
  try {
    // WAL lets readers go on while a writer writes; the mode is stored in the file itself.
    db.pragma("journal_mode = WAL");
    return await applyMigrations(sqliteMigrationDriver(db), migrations);
  } finally {
    db.close();
  }
}

async function migratePostgres(url: string, migrations: Migration[]): Promise<string[]> {
  // A connection of its own: the advisory lock and the transactions belong to one session.
  const client = new pg.Client({ connectionString: url });
  // A connection that breaks fails the query under way, which reports it; without a listener
  // the client's `error` event would end the process.
  client.on("error", () => {});
  await client.connect();
  try {
    return await applyMigrations(postgresMigrationDriver(client), migrations);
  } finally {
    await client.end();
  }
}

/** Opens the database at `url`, creating and migrating it first unless told not to. */
export async function openDatabase(
  url: string,
  options: { migrate: boolean } = { migrate: true },
): Promise<Database> {
  const flavour = flavourOf(url);
  if (options.migrate) await migrate(url);
  const prisma = flavour === "sqlite" ? openSqlite(url) : openPostgres(url);
  return { flavour, url, prisma, close: () => prisma.$disconnect() };
}

function openSqlite(url: string): PrismaClient {
  const adapter = new PrismaBetterSqlite3({
    url: sqlitePath(url),
    timeout: SQLITE_BUSY_TIMEOUT_MS,
  });
  return new PrismaClient({ adapter });
}

function openPostgres(url: string): PrismaClient {
  const adapter = new PrismaPg({ connectionString: url, max: POSTGRES_POOL_SIZE });
  // The one cast between flavours: the PostgreSQL client is generated from the same models as
  // the SQLite one, so every model query the repositories make has the same shape on both; the
  // two types differ only in provider details (the transaction isolation levels each allows).
  // SQL the two dialects disagree on is chosen by `Database.flavour` (see run-execution.ts).
  return new PostgresPrismaClient({ adapter }) as unknown as PrismaClient;
}
