import type BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { storableText } from "./storable-text.js";

/**
 * A value a direct statement binds: text, numbers, null, bytes (a BLOB, a BYTEA); dates are bound
 * as the flavour stores them.
 */
export type SqlValue = string | number | null | Date | Buffer;

/**
 * Statements sent to the database driver directly, beside Prisma: every write of run state (runs,
 * their events and changes, webhook deliveries) and the hot reads. A statement is prepared once
 * and reused, which Prisma does not do
 * (docs/decisions/0009-hot-statements-direct-to-the-driver.md).
 *
 * The SQL is written once with `?` placeholders and the column names of the migrations; dates come
 * back as `Date`s on both flavours. Only the db code uses it, behind the repositories' interfaces;
 * where the dialects differ, the statement has a variant per flavour (db/runs/sql/).
 */
export interface DirectSql {
  all<T>(sql: string, params: readonly SqlValue[]): Promise<T[]>;
  /**
   * Runs a transaction whose statements depend on what earlier ones found: `plan` yields each
   * statement and is handed its result (see `query`). The same plan runs on both flavours — on
   * SQLite synchronously, from BEGIN IMMEDIATE to COMMIT, on PostgreSQL one awaited statement
   * after the other — so a plan must do nothing but yield statements and compute. It may be run
   * again from its start (SQLite busy), so `plan` makes a fresh one each time. Throwing rolls back.
   */
  run<T>(plan: () => TransactionPlan<T>): Promise<T>;
  /**
   * A transaction of one statement: what it returned and changed. On PostgreSQL it goes without
   * BEGIN and COMMIT, one round trip
   * (docs/decisions/0010-one-statement-per-write-on-postgresql.md).
   */
  single<Row = Record<string, unknown>>(
    sql: string,
    params: readonly SqlValue[],
  ): Promise<SqlResult<Row>>;
  close(): void;
}

/** What a statement of a plan found: the rows it returned, and how many rows it changed. */
export interface SqlResult<Row = Record<string, unknown>> {
  rows: Row[];
  changes: number;
}

/** A transaction as statements yielded one at a time (see DirectSql.run). */
export type TransactionPlan<T> = Generator<SqlStatement, T, SqlResult>;

/** One statement of a plan: `const { rows } = yield* query<Row>(sql, params)`. */
export function* query<Row = Record<string, unknown>>(
  sql: string,
  params: readonly SqlValue[],
): Generator<SqlStatement, SqlResult<Row>, SqlResult> {
  return (yield { sql, params }) as SqlResult<Row>;
}

/** `?, ?, ?` for a list of `count` values (at least one). */
export function placeholders(count: number): string {
  return Array.from({ length: Math.max(1, count) }, () => "?").join(", ");
}

/** One statement of a plan. */
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
  const statements = new Map<string, PreparedSqlite>();
  const prepared = (sql: string) => {
    let entry = statements.get(sql);
    if (entry === undefined) {
      const statement = connection.prepare(sql);
      // Rows are read as arrays and made objects here: better-sqlite3's own object rows cost
      // more (docs/decisions/0007-sqlite-rows-as-arrays.md).
      if (statement.reader) statement.raw(true);
      const columns = statement.reader ? statement.columns().map((column) => column.name) : [];
      entry = { statement, columns, dates: columns.map((name) => DATE_COLUMN.test(name)) };
      statements.set(sql, entry);
    }
    return entry;
  };
  const execute = ({ sql, params }: SqlStatement): SqlResult => {
    const entry = prepared(sql);
    const values = params.map(toSqliteValue);
    if (!entry.statement.reader)
      return { rows: [], changes: entry.statement.run(...values).changes };
    const rows = (entry.statement.all(...values) as unknown[][]).map((row) => objectOf(row, entry));
    // A reader that writes (UPDATE … RETURNING) changed the rows it returned.
    return { rows, changes: /^\s*(UPDATE|INSERT|DELETE)/i.test(sql) ? rows.length : 0 };
  };
  const planned = connection.transaction(<T>(plan: TransactionPlan<T>): T => {
    let step = plan.next();
    while (!step.done) step = plan.next(execute(step.value));
    return step.value;
  });
  return {
    all: <T>(sql: string, params: readonly SqlValue[]) =>
      whenNotBusy(() => execute({ sql, params }).rows as T[]),
    run: <T>(plan: () => TransactionPlan<T>) => whenNotBusy(() => planned.immediate(plan()) as T),
    single: <Row>(sql: string, params: readonly SqlValue[]) =>
      whenNotBusy(() => execute({ sql, params }) as SqlResult<Row>),
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
function toSqliteValue(value: SqlValue): string | number | null | Buffer {
  if (typeof value === "string") return storableText(value);
  return value instanceof Date ? value.toISOString().replace("Z", "+00:00") : value;
}

// Columns named *_at or *_time hold dates; everything else is returned as stored. Which of a
// statement's columns those are is found once, when it is prepared.
const DATE_COLUMN = /(_at|_time)$/;

/** A statement prepared once, with its columns' names and which of them hold dates. */
interface PreparedSqlite {
  statement: BetterSqlite3.Statement;
  columns: string[];
  dates: boolean[];
}

/** A row read as an array, as the object of its statement's columns, dates as `Date`s. */
function objectOf(values: unknown[], { columns, dates }: PreparedSqlite): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (let i = 0; i < columns.length; i += 1) {
    const value = values[i];
    row[columns[i] as string] = dates[i] && typeof value === "string" ? new Date(value) : value;
  }
  return row;
}

/**
 * Over the pool Prisma's adapter uses (no connections of its own). Each text becomes a named
 * prepared statement, which PostgreSQL plans once per connection.
 */
export function postgresDirectSql(pool: pg.Pool): DirectSql {
  const names = new Map<string, { text: string; name: string }>();
  const prepared = (sql: string): { text: string; name?: string } => {
    let statement = names.get(sql);
    if (statement === undefined) {
      let n = 0;
      const text = sql.replace(/\?/g, () => `$${++n}`);
      // Texts that vary (an IN list's length) could grow without end: past a few hundred
      // texts, new ones are sent unnamed (planned each time).
      if (names.size >= MAX_NAMED_STATEMENTS) return { text };
      statement = { text, name: `direct_${names.size}` };
      names.set(sql, statement);
    }
    return statement;
  };
  async function run<T>(plan: () => TransactionPlan<T>): Promise<T> {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      const steps = plan();
      let step = steps.next();
      while (!step.done) {
        const { sql, params } = step.value;
        const result = await client.query({
          ...prepared(sql),
          values: params.map(toPostgresValue),
          types: utcTimestamps,
        });
        step = steps.next({ rows: result.rows, changes: result.rowCount ?? 0 });
      }
      await client.query("COMMIT");
      return step.value;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }
  const single = async <Row>(sql: string, params: readonly SqlValue[]) => {
    const result = await pool.query({
      ...prepared(sql),
      values: params.map(toPostgresValue),
      types: utcTimestamps,
    });
    return { rows: result.rows as Row[], changes: result.rowCount ?? 0 };
  };
  return {
    all: async <T>(sql: string, params: readonly SqlValue[]) => (await single<T>(sql, params)).rows,
    run,
    single,
    // The pool is Prisma's; closing the database closes it.
    close: () => {},
  };
}

const MAX_NAMED_STATEMENTS = 500;

// Prisma writes `timestamp(3)` (without time zone) columns in UTC; node-postgres would read and
// write them in the process's local time zone.
function toPostgresValue(value: SqlValue): string | number | null | Buffer {
  if (typeof value === "string") return storableText(value);
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
