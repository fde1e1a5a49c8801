import { dirname } from "node:path";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import type { PrismaClient } from "../generated/sqlite/client/client.js";
import { paths } from "../paths.js";
import { makePrivateDatabaseFile, makePrivateDir } from "../private-files.js";
import { type Flavour, flavourOf, sqlitePath } from "./database-url.js";
import { type DirectSql, postgresDirectSql, sqliteDirectSql } from "./direct-sql.js";
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
  /** The driver itself, for the hot reads that bypass Prisma (see direct-sql.ts). */
  direct: DirectSql;
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
  const { prisma, direct, end } = await (flavour === "sqlite"
    ? openSqlite(url)
    : openPostgres(url));
  return {
    flavour,
    url,
    prisma,
    direct,
    close: async () => {
      await prisma.$disconnect();
      await end();
    },
  };
}

/**
 * How long a transaction may wait to start (for the SQLite connection, or one of the pool's),
 * and to run. Prisma's 2 s wait fails a skill import or a file's write with a 500 on a machine
 * whose cores are busy for a moment; a slower answer is what a client would rather have.
 */
const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 10_000 };

interface Opened {
  prisma: PrismaClient;
  direct: DirectSql;
  /** Closes what Prisma does not close itself. */
  end(): Promise<void>;
}

// Each flavour's generated client is loaded only when a database of that flavour is opened: each
// brings its own query compiler (WebAssembly), tens of MB of memory the other flavour never needs.
async function openSqlite(url: string): Promise<Opened> {
  const { PrismaClient } = await import("../generated/sqlite/client/client.js");
  const file = sqlitePath(url);
  const adapter = new PrismaBetterSqlite3({ url: file, timeout: SQLITE_BUSY_TIMEOUT_MS });
  // A second connection for the direct statements: Prisma's is taken by any transaction under
  // way. Busy timeout 0: see sqliteDirectSql.
  const direct = sqliteDirectSql(new BetterSqlite3(file, { timeout: 0 }));
  const prisma = new PrismaClient({ adapter, transactionOptions: TRANSACTION_OPTIONS });
  return { prisma, direct, end: async () => direct.close() };
}

async function openPostgres(url: string): Promise<Opened> {
  const { PrismaClient: PostgresPrismaClient } = await import(
    "../generated/postgres/client/client.js"
  );
  // One pool for Prisma's adapter and the direct reads.
  const pool = new pg.Pool({ connectionString: url, max: POSTGRES_POOL_SIZE });
  // An idle connection that breaks is dropped by the pool; without a listener the error would
  // end the process.
  pool.on("error", () => {});
  const adapter = new PrismaPg(pool);
  // The one cast between flavours: the PostgreSQL client is generated from the same models as
  // the SQLite one, so every model query the repositories make has the same shape on both; the
  // two types differ only in provider details (the transaction isolation levels each allows).
  // SQL the two dialects disagree on is chosen by `Database.flavour` (see db/runs/sql/).
  const prisma = new PostgresPrismaClient({
    adapter,
    transactionOptions: TRANSACTION_OPTIONS,
  }) as unknown as PrismaClient;
  return { prisma, direct: postgresDirectSql(pool), end: () => pool.end() };
}
