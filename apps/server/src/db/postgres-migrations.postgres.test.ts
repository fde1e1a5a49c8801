import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { paths } from "../paths.js";
import { createTestDatabase, type TestDatabase } from "../test-support/test-database.js";
import { migrate } from "./database.js";
import { applyMigrations, readMigrations } from "./migrations.js";
import { positionalParameters, postgresMigrationDriver } from "./postgres-migration-driver.js";

// The PostgreSQL side of migrations.test.ts: always on PostgreSQL (TEST_DATABASE_URL's server),
// whatever TEST_FLAVOUR says.

let dir: string;
let database: TestDatabase;
let client: pg.Client;

type MigrationRow = {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  started_at: Date;
  logs: string | null;
  applied_steps_count: number;
};

async function rows(): Promise<MigrationRow[]> {
  const result = await client.query<MigrationRow>(
    `SELECT * FROM "_prisma_migrations" ORDER BY started_at, migration_name`,
  );
  return result.rows;
}

function writeMigration(root: string, name: string, sql: string) {
  mkdirSync(join(root, name), { recursive: true });
  writeFileSync(join(root, name, "migration.sql"), sql);
}

describe("migrations on PostgreSQL", () => {
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "skillrun-pg-migrations-"));
    database = await createTestDatabase("postgres");
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  });
  afterEach(async () => {
    await client.end();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("applies every migration and records it as Prisma does", async () => {
    const applied = await migrate(database.url);
    const shipped = readMigrations(paths.migrations("postgres"));
    expect(applied).toEqual(shipped.map((m) => m.name));
    const recorded = await rows();
    expect(recorded.map((r) => r.migration_name)).toEqual(applied);
    for (const [i, r] of recorded.entries()) {
      const sql = readFileSync(
        join(paths.migrations("postgres"), applied[i] as string, "migration.sql"),
      );
      expect(r.checksum).toBe(createHash("sha256").update(sql).digest("hex"));
      expect(r.finished_at).toBeInstanceOf(Date);
      expect(r.started_at).toBeInstanceOf(Date);
      expect(r.finished_at?.getTime()).toBeGreaterThanOrEqual(r.started_at.getTime());
      expect(r.rolled_back_at).toBeNull();
      expect(r.applied_steps_count).toBe(1);
    }
  });

  it("creates _prisma_migrations with the columns Prisma's schema engine gives it", async () => {
    await migrate(database.url);
    const columns = await client.query(
      `SELECT column_name, data_type, character_maximum_length AS length, is_nullable, column_default
         FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = '_prisma_migrations'
        ORDER BY ordinal_position`,
    );
    expect(columns.rows).toEqual([
      col("id", "character varying", 36, "NO"),
      col("checksum", "character varying", 64, "NO"),
      col("finished_at", "timestamp with time zone", null, "YES"),
      col("migration_name", "character varying", 255, "NO"),
      col("logs", "text", null, "YES"),
      col("rolled_back_at", "timestamp with time zone", null, "YES"),
      col("started_at", "timestamp with time zone", null, "NO", "now()"),
      col("applied_steps_count", "integer", null, "NO", "0"),
    ]);
    const primaryKey = await client.query(
      `SELECT a.attname FROM pg_index i
         JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
        WHERE i.indrelid = '"_prisma_migrations"'::regclass AND i.indisprimary`,
    );
    expect(primaryKey.rows).toEqual([{ attname: "id" }]);
  });

  it("applies nothing the second time", async () => {
    await migrate(database.url);
    expect(await migrate(database.url)).toEqual([]);
    expect(await rows()).toHaveLength(readMigrations(paths.migrations("postgres")).length);
  });

  it("applies each migration once when several servers start together", async () => {
    const results = await Promise.all([1, 2, 3].map(() => migrate(database.url)));
    const shipped = readMigrations(paths.migrations("postgres")).map((m) => m.name);
    // Each migration was applied by exactly one of them; the others found it done.
    expect(results.flat().sort()).toEqual(shipped);
    expect((await rows()).map((r) => r.migration_name)).toEqual(shipped);
  });

  it("refuses a migration edited after it was applied", async () => {
    const folder = join(dir, "migrations");
    writeMigration(folder, "001_a", `CREATE TABLE "a" ("id" TEXT);`);
    const driver = postgresMigrationDriver(client);
    await applyMigrations(driver, readMigrations(folder));
    writeMigration(folder, "001_a", `CREATE TABLE "a" ("id" INTEGER);`);
    await expect(applyMigrations(driver, readMigrations(folder))).rejects.toThrow(
      "Migration 001_a was modified after it was applied",
    );
  });

  it("rolls back a failing migration, records why, and applies it once fixed", async () => {
    const folder = join(dir, "migrations");
    writeMigration(folder, "001_a", `CREATE TABLE "a" ("id" TEXT);`);
    writeMigration(folder, "002_b", `CREATE TABLE "b" ("id" TEXT); CREATE TABLE "a" ("id" TEXT);`);
    const driver = postgresMigrationDriver(client);
    await expect(applyMigrations(driver, readMigrations(folder))).rejects.toThrow(
      "Migration 002_b failed and was rolled back",
    );
    // Nothing of 002_b stayed: its first statement was rolled back with the second.
    const tables = await client.query(`SELECT to_regclass('"b"') AS b`);
    expect(tables.rows).toEqual([{ b: null }]);
    const failed = (await rows()).find((r) => r.migration_name === "002_b");
    expect(failed?.finished_at).toBeNull();
    expect(failed?.rolled_back_at).toBeInstanceOf(Date);
    expect(failed?.applied_steps_count).toBe(0);
    expect(failed?.logs).toContain("already exists");

    writeMigration(folder, "002_b", `CREATE TABLE "b" ("id" TEXT);`);
    expect(await applyMigrations(driver, readMigrations(folder))).toEqual(["002_b"]);
  });
});

describe("positionalParameters", () => {
  it("numbers the placeholders and leaves question marks in quotes alone", () => {
    expect(
      positionalParameters(`SELECT '?', "a?" FROM t WHERE a = ? AND b = 'it''s?' OR c = ?`),
    ).toBe(`SELECT '?', "a?" FROM t WHERE a = $1 AND b = 'it''s?' OR c = $2`);
  });
});

function col(
  column_name: string,
  data_type: string,
  length: number | null,
  is_nullable: "YES" | "NO",
  column_default: string | null = null,
) {
  return { column_name, data_type, length, is_nullable, column_default };
}
