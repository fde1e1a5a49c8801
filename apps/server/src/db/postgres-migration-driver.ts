import type pg from "pg";
import type { MigrationDriver } from "./migrations.js";

/**
 * The advisory lock key migrations are applied under: the one Prisma's schema engine takes, so
 * our migrator and `prisma migrate deploy` also wait for each other.
 */
export const MIGRATION_LOCK_KEY = 72707369;

/** Migration driver over a dedicated node-postgres connection. */
export function postgresMigrationDriver(client: pg.Client): MigrationDriver {
  return {
    async exec(sql) {
      // Without parameters node-postgres uses the simple query protocol, which runs a script
      // of several statements.
      await client.query(sql);
    },
    async query<T>(sql: string, params: unknown[] = []) {
      const result = await client.query(positionalParameters(sql), params);
      return result.rows as T[];
    },
    async transaction(work) {
      await client.query("BEGIN");
      try {
        // Held until COMMIT or ROLLBACK: servers starting together migrate one after the other,
        // and each reads `_prisma_migrations` only once the one before it has committed.
        await client.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
        const result = await work();
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK");
        throw error;
      }
    },
    // Prisma's schema engine creates this table so on PostgreSQL (IF NOT EXISTS added, as the
    // migrator runs it at every start).
    createTableSql: `CREATE TABLE IF NOT EXISTS _prisma_migrations (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             TIMESTAMPTZ,
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          TIMESTAMPTZ,
    started_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    applied_steps_count     INTEGER NOT NULL DEFAULT 0
)`,
    // TIMESTAMPTZ: node-postgres sends a Date with its offset, so the instant is kept.
    timestamp: (date) => date,
  };
}

/**
 * Turns the driver interface's `?` placeholders into PostgreSQL's `$1`, `$2`, …, leaving any `?`
 * inside quoted strings and identifiers alone.
 */
export function positionalParameters(sql: string): string {
  let n = 0;
  let quote: string | null = null;
  let out = "";
  for (const char of sql) {
    if (quote !== null) {
      if (char === quote) quote = null;
      out += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      out += char;
    } else if (char === "?") {
      n += 1;
      out += `$${n}`;
    } else {
      out += char;
    }
  }
  return out;
}
