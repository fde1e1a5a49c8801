import { createHash, randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The few SQL operations the migrator needs, implemented once per database flavour. */
export interface MigrationDriver {
  /** Runs a script of one or more statements. */
  exec(sql: string): Promise<void>;
  /** Runs one statement with `?` placeholders and returns its rows. */
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs `work` holding the database's migration lock, inside one transaction. */
  transaction<T>(work: () => Promise<T>): Promise<T>;
  /** SQL that creates `_prisma_migrations` exactly as Prisma's schema engine does. */
  readonly createTableSql: string;
  /** A timestamp in the representation Prisma stores in `_prisma_migrations`. */
  timestamp(date: Date): unknown;
}

export interface Migration {
  name: string;
  sql: string;
  /** Hex SHA-256 of migration.sql, as Prisma computes it. */
  checksum: string;
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: unknown;
  rolled_back_at: unknown;
}

/** A migration whose migration.sql changed after it was applied; start-up stops on it. */
class MigrationEdited extends Error {
  constructor(name: string) {
    super(
      `Migration ${name} was modified after it was applied (checksum differs); restore the original migration.sql and add a new migration instead`,
    );
  }
}

/** Reads `<dir>/<name>/migration.sql` folders in name order (Prisma's folder layout). */
export function readMigrations(dir: string): Migration[] {
  if (!existsSync(dir)) throw new Error(`No migrations folder at ${dir}`);
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(dir, e.name, "migration.sql")))
    .map((e) => e.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

/**
 * Applies the pending migrations in order and records each in `_prisma_migrations` the way
 * `prisma migrate deploy` does, so the two agree. A migration that fails is rolled back and
 * recorded as rolled back with its error in `logs`; one that was edited after it was applied
 * stops the start-up. Returns the names of the migrations it applied.
 */
export async function applyMigrations(
  driver: MigrationDriver,
  migrations: Migration[],
): Promise<string[]> {
  // Under the migration lock too: two servers starting on a fresh database would otherwise
  // race to create the table.
  await driver.transaction(() => driver.exec(driver.createTableSql));
  const applied: string[] = [];
  for (const migration of migrations) {
    const done = await driver
      .transaction(async () => {
        const rows = await driver.query<AppliedRow>(
          `SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" WHERE migration_name = ?`,
          [migration.name],
        );
        const finished = rows.find((r) => r.finished_at !== null && r.rolled_back_at === null);
        if (finished) {
          if (finished.checksum !== migration.checksum) throw new MigrationEdited(migration.name);
          return true;
        }
        const started = new Date();
        await driver.exec(migration.sql);
        await driver.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count) VALUES (?, ?, ?, ?, NULL, NULL, ?, 1)`,
          [
            randomUUID(),
            migration.checksum,
            driver.timestamp(new Date()),
            migration.name,
            driver.timestamp(started),
          ],
        );
        return false;
      })
      .catch(async (error: unknown) => {
        // An edited migration was not run: there is no failure to record.
        if (error instanceof MigrationEdited) throw error;
        await recordFailure(driver, migration, error);
        throw new Error(`Migration ${migration.name} failed and was rolled back: ${String(error)}`);
      });
    if (!done) applied.push(migration.name);
  }
  return applied;
}

async function recordFailure(driver: MigrationDriver, migration: Migration, error: unknown) {
  const now = driver.timestamp(new Date());
  await driver.query(
    `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count) VALUES (?, ?, NULL, ?, ?, ?, ?, 0)`,
    [randomUUID(), migration.checksum, migration.name, String(error), now, now],
  );
}
