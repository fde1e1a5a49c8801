import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../src/db/database.js";
import { sqlitePath } from "../src/db/database-url.js";
import { createTestDatabase, type TestDatabase } from "../src/test-support/test-database.js";

/**
 * Both flavours' migrations must build the same schema: the same tables, columns, keys and
 * indexes, so that one Prisma model source fits both and queries perform alike. This test
 * always needs PostgreSQL (TEST_DATABASE_URL's server), whatever TEST_FLAVOUR says.
 */

type TypeFamily =
  | "text"
  | "integer"
  | "bigint"
  | "boolean"
  | "timestamp"
  | "bytes"
  | `other: ${string}`;

interface ColumnShape {
  type: TypeFamily;
  nullable: boolean;
  /** Position in the primary key (1-based), or null when not part of it. */
  primaryKey: number | null;
  /** A literal default, "autoincrement", or null. */
  default: string | null;
}

interface IndexShape {
  table: string;
  /** Key columns in order, each with its sort direction: `created_at DESC`. */
  columns: string[];
  unique: boolean;
}

interface ForeignKeyShape {
  onDelete: string;
  onUpdate: string;
}

interface SchemaShape {
  tables: Record<string, Record<string, ColumnShape>>;
  indexes: Record<string, IndexShape>;
  /** Keyed `table(columns) -> table(columns)`; SQLite keeps no constraint names. */
  foreignKeys: Record<string, ForeignKeyShape>;
}

/** Prisma's bookkeeping table differs between flavours by design (Prisma creates it so). */
const EXCLUDED = "_prisma_migrations";

function sqliteTypeFamily(declared: string): TypeFamily {
  const type = declared.toUpperCase();
  if (type === "TEXT") return "text";
  if (type === "INTEGER") return "integer";
  if (type === "BIGINT") return "bigint";
  if (type === "BOOLEAN") return "boolean";
  if (type === "DATETIME") return "timestamp";
  if (type === "BLOB") return "bytes";
  return `other: ${declared}`;
}

function postgresTypeFamily(dataType: string): TypeFamily {
  if (dataType === "text") return "text";
  if (dataType === "integer") return "integer";
  if (dataType === "bigint") return "bigint";
  if (dataType === "boolean") return "boolean";
  if (dataType === "timestamp without time zone") return "timestamp";
  if (dataType === "bytea") return "bytes";
  return `other: ${dataType}`;
}

function describeSqlite(db: BetterSqlite3.Database): SchemaShape {
  const shape: SchemaShape = { tables: {}, indexes: {}, foreignKeys: {} };
  const tables = db
    .prepare(
      `SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> ? ORDER BY name`,
    )
    .all(EXCLUDED) as { name: string; sql: string }[];
  for (const table of tables) {
    const columns = db.prepare(`SELECT * FROM pragma_table_info(?)`).all(table.name) as {
      name: string;
      type: string;
      notnull: number;
      dflt_value: string | null;
      pk: number;
    }[];
    const autoincrement = /\bAUTOINCREMENT\b/i.test(table.sql);
    shape.tables[table.name] = Object.fromEntries(
      columns.map((c) => [
        c.name,
        {
          type: sqliteTypeFamily(c.type),
          // A PRIMARY KEY column of SQLite may hold NULL unless declared NOT NULL; Prisma always
          // declares it, as PostgreSQL implies it.
          nullable: c.notnull === 0,
          primaryKey: c.pk === 0 ? null : c.pk,
          default: c.pk !== 0 && autoincrement ? "autoincrement" : c.dflt_value,
        },
      ]),
    );

    const indexes = db.prepare(`SELECT * FROM pragma_index_list(?)`).all(table.name) as {
      name: string;
      unique: number;
      origin: "c" | "u" | "pk";
    }[];
    for (const index of indexes.filter((i) => i.origin !== "pk")) {
      const keyColumns = (
        db.prepare(`SELECT * FROM pragma_index_xinfo(?)`).all(index.name) as {
          seqno: number;
          name: string | null;
          desc: number;
          key: number;
        }[]
      )
        .filter((c) => c.key === 1)
        .sort((a, b) => a.seqno - b.seqno);
      shape.indexes[index.name] = {
        table: table.name,
        columns: keyColumns.map((c) => `${c.name} ${c.desc ? "DESC" : "ASC"}`),
        unique: index.unique === 1,
      };
    }

    const foreignKeys = db.prepare(`SELECT * FROM pragma_foreign_key_list(?)`).all(table.name) as {
      id: number;
      seq: number;
      table: string;
      from: string;
      to: string;
      on_update: string;
      on_delete: string;
    }[];
    for (const id of new Set(foreignKeys.map((fk) => fk.id))) {
      const parts = foreignKeys.filter((fk) => fk.id === id).sort((a, b) => a.seq - b.seq);
      const first = parts[0];
      if (!first) continue;
      const key = `${table.name}(${parts.map((p) => p.from).join(", ")}) -> ${first.table}(${parts.map((p) => p.to).join(", ")})`;
      shape.foreignKeys[key] = { onDelete: first.on_delete, onUpdate: first.on_update };
    }
  }
  return shape;
}

const PG_ACTIONS: Record<string, string> = {
  a: "NO ACTION",
  r: "RESTRICT",
  c: "CASCADE",
  n: "SET NULL",
  d: "SET DEFAULT",
};

async function describePostgres(client: pg.Client): Promise<SchemaShape> {
  const shape: SchemaShape = { tables: {}, indexes: {}, foreignKeys: {} };
  const columns = await client.query<{
    table_name: string;
    column_name: string;
    data_type: string;
    is_nullable: "YES" | "NO";
    column_default: string | null;
    pk_position: number | null;
  }>(
    `SELECT c.table_name, c.column_name, c.data_type, c.is_nullable, c.column_default,
            (SELECT array_position(i.indkey::int2[], a.attnum) + 1
               FROM pg_index i
               JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attname = c.column_name
              WHERE i.indrelid = format('%I.%I', c.table_schema, c.table_name)::regclass
                AND i.indisprimary) AS pk_position
       FROM information_schema.columns c
       JOIN information_schema.tables t
         ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
        AND c.table_name <> $1
      ORDER BY c.table_name, c.ordinal_position`,
    [EXCLUDED],
  );
  for (const c of columns.rows) {
    shape.tables[c.table_name] ??= {};
    const table = shape.tables[c.table_name] as Record<string, ColumnShape>;
    table[c.column_name] = {
      type: postgresTypeFamily(c.data_type),
      nullable: c.is_nullable === "YES",
      primaryKey: c.pk_position,
      default: c.column_default?.startsWith("nextval(")
        ? "autoincrement"
        : literal(c.column_default),
    };
  }

  const indexes = await client.query<{
    name: string;
    table: string;
    unique: boolean;
    columns: string[];
  }>(
    `SELECT ic.relname AS name, t.relname AS table, i.indisunique AS unique,
            array_agg(a.attname || CASE WHEN (i.indoption[k.ord - 1] & 1) = 1 THEN ' DESC' ELSE ' ASC' END
                      ORDER BY k.ord) AS columns
       FROM pg_index i
       JOIN pg_class ic ON ic.oid = i.indexrelid
       JOIN pg_class t ON t.oid = i.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
       JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
      WHERE n.nspname = current_schema() AND NOT i.indisprimary AND t.relname <> $1
        AND k.ord <= i.indnkeyatts
      GROUP BY ic.relname, t.relname, i.indisunique`,
    [EXCLUDED],
  );
  for (const index of indexes.rows) {
    shape.indexes[index.name] = {
      table: index.table,
      columns: index.columns,
      unique: index.unique,
    };
  }

  const foreignKeys = await client.query<{
    table: string;
    columns: string[];
    referenced_table: string;
    referenced_columns: string[];
    confdeltype: string;
    confupdtype: string;
  }>(
    `SELECT t.relname AS table, rt.relname AS referenced_table, c.confdeltype, c.confupdtype,
            (SELECT array_agg(a.attname::text ORDER BY k.ord)
               FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, ord)
               JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum) AS columns,
            (SELECT array_agg(a.attname::text ORDER BY k.ord)
               FROM unnest(c.confkey) WITH ORDINALITY AS k(attnum, ord)
               JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum)
              AS referenced_columns
       FROM pg_constraint c
       JOIN pg_class t ON t.oid = c.conrelid
       JOIN pg_class rt ON rt.oid = c.confrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE c.contype = 'f' AND n.nspname = current_schema()`,
  );
  for (const fk of foreignKeys.rows) {
    const key = `${fk.table}(${fk.columns.join(", ")}) -> ${fk.referenced_table}(${fk.referenced_columns.join(", ")})`;
    shape.foreignKeys[key] = {
      onDelete: PG_ACTIONS[fk.confdeltype] ?? fk.confdeltype,
      onUpdate: PG_ACTIONS[fk.confupdtype] ?? fk.confupdtype,
    };
  }
  return shape;
}

describe("migration parity", () => {
  let sqliteDatabase: TestDatabase;
  let postgresDatabase: TestDatabase;
  let sqlite: BetterSqlite3.Database;
  let postgres: pg.Client;

  beforeAll(async () => {
    sqliteDatabase = await createTestDatabase("sqlite");
    postgresDatabase = await createTestDatabase("postgres");
    await migrate(sqliteDatabase.url);
    await migrate(postgresDatabase.url);
    sqlite = new BetterSqlite3(sqlitePath(sqliteDatabase.url));
    postgres = new pg.Client({ connectionString: postgresDatabase.url });
    await postgres.connect();
  });
  afterAll(async () => {
    sqlite?.close();
    await postgres?.end();
    await sqliteDatabase?.drop();
    await postgresDatabase?.drop();
  });

  it("builds the same tables, columns, keys and indexes on SQLite and PostgreSQL", async () => {
    const fromSqlite = describeSqlite(sqlite);
    const fromPostgres = await describePostgres(postgres);
    // Guard against comparing two empty descriptions.
    expect(Object.keys(fromSqlite.tables).sort()).toEqual([
      "agents",
      "api_keys",
      "idempotency_keys",
      "owner_storage",
      "profiles",
      "run_changes",
      "run_checkpoints",
      "run_events",
      "run_files",
      "run_live_views",
      "run_owners",
      "run_videos",
      "runs",
      "schedule_ticks",
      "schedules",
      "secrets",
      "skills",
      "uploaded_files",
      "webhook_attempts",
      "webhook_deliveries",
      "webhooks",
    ]);
    expect(Object.keys(fromSqlite.indexes).length).toBeGreaterThan(0);
    expect(Object.keys(fromSqlite.foreignKeys).length).toBeGreaterThan(0);
    expect(fromPostgres).toEqual(fromSqlite);
  });

  it("tells the flavours apart when an index is missing from one of them", async () => {
    const before = describeSqlite(sqlite);
    sqlite.exec(`DROP INDEX "runs_state_lease_expires_at_idx"`);
    try {
      expect(describeSqlite(sqlite)).not.toEqual(await describePostgres(postgres));
      expect(describeSqlite(sqlite)).not.toEqual(before);
    } finally {
      sqlite.exec(
        `CREATE INDEX "runs_state_lease_expires_at_idx" ON "runs"("state", "lease_expires_at")`,
      );
    }
    expect(describeSqlite(sqlite)).toEqual(before);
  });
});

/** A column default as SQLite writes it: PostgreSQL adds the type to a text literal (`'x'::text`). */
function literal(value: string | null): string | null {
  return value?.replace(/^('(?:[^']|'')*')::text$/, "$1") ?? null;
}
