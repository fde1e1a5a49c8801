import type BetterSqlite3 from "better-sqlite3";
import type { MigrationDriver } from "./migrations.js";

/** Migration driver over a better-sqlite3 connection. */
export function sqliteMigrationDriver(db: BetterSqlite3.Database): MigrationDriver {
  return {
    async exec(sql) {
      db.exec(sql);
    },
    async query<T>(sql: string, params: unknown[] = []) {
      const statement = db.prepare(sql);
      if (statement.reader) return statement.all(...params) as T[];
      statement.run(...params);
      return [];
    },
    async transaction(work) {
      // IMMEDIATE takes the write lock at once, so two processes starting together migrate
      // one after the other instead of both applying the same migration.
      db.exec("BEGIN IMMEDIATE");
      try {
        const result = await work();
        db.exec("COMMIT");
        return result;
      } catch (error) {
        db.exec("ROLLBACK");
        throw error;
      }
    },
    // Prisma's schema engine creates this table, byte for byte, on SQLite.
    createTableSql: `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    TEXT PRIMARY KEY NOT NULL,
    "checksum"              TEXT NOT NULL,
    "finished_at"           DATETIME,
    "migration_name"        TEXT NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        DATETIME,
    "started_at"            DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count"   INTEGER UNSIGNED NOT NULL DEFAULT 0
)`,
    // Prisma's SQLite connector stores DateTime as Unix milliseconds.
    timestamp: (date) => date.getTime(),
  };
}
