import type BetterSqlite3 from "better-sqlite3";
import pg from "pg";

/** A value a direct statement binds: text, numbers, null; dates are bound as the flavour stores them. */
export type SqlValue = string | number | null | Date;

/**
 * Statements sent to the database driver directly, beside Prisma, for the few reads on the API's
 * hot path (a run, a page of runs, an API key): Prisma compiles every query anew and, on SQLite,
 * prepares its statement anew each time, which cost more than the rest of such a request
 * (`npm run bench`, BENCHMARKS.md). Here a statement is prepared once and reused.
 *
 * The SQL is written once with `?` placeholders and the column names of the migrations; dates come
 * back as `Date`s on both flavours. Only the repositories use it, behind their interfaces, and
 * only for statements the two dialects spell alike.
 */
export interface DirectSql {
  all<T>(sql: string, params: readonly SqlValue[]): Promise<T[]>;
  /** Runs the statements in one transaction: all of them are committed, or none. */
  transaction(statements: readonly SqlStatement[]): Promise<void>;
  close(): void;
}

/** One statement of a direct transaction. */
export interface SqlStatement {
  sql: string;
  params: readonly SqlValue[];
}

// How long a SQLite statement keeps trying while another connection writes, before it fails.
const SQLITE_BUSY_FOR_MS = 10_000;

/**
 * Over a connection of its own to the SQLite file: in WAL mode a read sees everything committed
 * before it began, whichever connection wrote it. Statements are prepared once per text.
 *
 * The connection must be opened with a busy timeout of 0. better-sqlite3 waits for a lock by
 * blocking the thread, and the lock may be held by Prisma's connection in this very process, in a
 * transaction that can only go on once the thread is free again: waiting would hold both until
 * the timeout. So a statement that finds the database locked is tried again a moment later,
 * without blocking, for up to 10 s. A transaction here runs synchronously from BEGIN IMMEDIATE to
 * COMMIT: it never holds the lock while other code runs.
 */
export function sqliteDirectSql(connection: BetterSqlite3.Database): DirectSql {
  const statements = new Map<string, BetterSqlite3.Statement>();
  const prepared = (sql: string) => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = connection.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
  const inTransaction = connection.transaction((batch: readonly SqlStatement[]) => {
    for (const { sql, params } of batch) prepared(sql).run(...params.map(toSqliteValue));
  });
  return {
    all<T>(sql: string, params: readonly SqlValue[]): Promise<T[]> {
      return whenNotBusy(() => {
        const rows = prepared(sql).all(...params.map(toSqliteValue)) as Record<string, unknown>[];
        return rows.map(withSqliteDates) as T[];
      });
    },
    transaction: (batch) => whenNotBusy(() => inTransaction.immediate(batch)),
    close: () => connection.close(),
  };
}

async function whenNotBusy<T>(attempt: () => T): Promise<T> {
  const deadline = Date.now() + SQLITE_BUSY_FOR_MS;
  for (let pause = 1; ; pause = Math.min(pause * 2, 20)) {
    try {
      return attempt();
    } catch (error) {
      const busy = (error as { code?: string }).code === "SQLITE_BUSY";
      if (!busy || Date.now() > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

// Prisma's SQLite adapter stores a DateTime as ISO 8601 text (`2026-11-25T18:39:07.099+00:00`),
// which sorts and compares as time does; bound dates are written the same way.
function toSqliteValue(value: SqlValue): string | number | null {
  return value instanceof Date ? value.toISOString().replace("Z", "+00:00") : value;
}

// Columns named *_at or *_time hold dates; everything else is returned as stored.
const DATE_COLUMN = /(_at|_time)$/;

function withSqliteDates(row: Record<string, unknown>): Record<string, unknown> {
  for (const [column, value] of Object.entries(row)) {
    if (typeof value === "string" && DATE_COLUMN.test(column)) row[column] = new Date(value);
  }
  return row;
}

/**
 * Over the pool Prisma's adapter uses (no connections of its own). Each text becomes a named
 * prepared statement, which PostgreSQL plans once per connection.
 */
export function postgresDirectSql(pool: pg.Pool): DirectSql {
  const names = new Map<string, { text: string; name: string }>();
  const prepared = (sql: string) => {
    let statement = names.get(sql);
    if (statement === undefined) {
      let n = 0;
      statement = { text: sql.replace(/\?/g, () => `$${++n}`), name: `direct_${names.size}` };
      names.set(sql, statement);
    }
    return statement;
  };
  return {
    async all<T>(sql: string, params: readonly SqlValue[]): Promise<T[]> {
      const result = await pool.query({
        ...prepared(sql),
        values: params.map(toPostgresValue),
        types: utcTimestamps,
      });
      return result.rows as T[];
    },
    async transaction(batch) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        for (const { sql, params } of batch) {
          await client.query({ ...prepared(sql), values: params.map(toPostgresValue) });
        }
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    // The pool is Prisma's; closing the database closes it.
    close: () => {},
  };
}

// Prisma writes `timestamp(3)` (without time zone) columns in UTC; node-postgres would read and
// write them in the process's local time zone.
function toPostgresValue(value: SqlValue): string | number | null {
  return value instanceof Date ? value.toISOString().slice(0, -1) : value;
}

const TIMESTAMP_OID = 1114;
const utcTimestamps = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === TIMESTAMP_OID
      ? (text: string) => new Date(`${text.replace(" ", "T")}Z`)
      : (pg.types.getTypeParser as (oid: number, format?: string) => unknown)(
          oid,
          format,
        )) as never,
};
