import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { paths } from "../paths.js";
import { migrate } from "./database.js";
import { applyMigrations, readMigrations } from "./migrations.js";
import { sqliteMigrationDriver } from "./sqlite-migration-driver.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "skillrun-migrations-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function rows(file: string) {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    return db.prepare(`SELECT * FROM "_prisma_migrations" ORDER BY started_at`).all() as {
      migration_name: string;
      checksum: string;
      finished_at: number | null;
      rolled_back_at: number | null;
      logs: string | null;
      applied_steps_count: number;
    }[];
  } finally {
    db.close();
  }
}

function writeMigration(root: string, name: string, sql: string) {
  mkdirSync(join(root, name), { recursive: true });
  writeFileSync(join(root, name, "migration.sql"), sql);
}

describe("migrations", () => {
  it("creates the database file and records every migration as Prisma does", async () => {
    const file = join(dir, "nested", "skillrun.db");
    const applied = await migrate(`file:${file}`);
    const shipped = readMigrations(paths.migrations("sqlite"));
    expect(applied).toEqual(shipped.map((m) => m.name));
    const recorded = rows(file);
    expect(recorded.map((r) => r.migration_name)).toEqual(applied);
    for (const [i, r] of recorded.entries()) {
      const sql = readFileSync(
        join(paths.migrations("sqlite"), applied[i] as string, "migration.sql"),
      );
      expect(r.checksum).toBe(createHash("sha256").update(sql).digest("hex"));
      expect(r.finished_at).toBeTypeOf("number");
      expect(r.rolled_back_at).toBeNull();
      expect(r.applied_steps_count).toBe(1);
    }
  });

  it("applies nothing the second time", async () => {
    const url = `file:${join(dir, "skillrun.db")}`;
    await migrate(url);
    expect(await migrate(url)).toEqual([]);
    expect(rows(join(dir, "skillrun.db"))).toHaveLength(
      readMigrations(paths.migrations("sqlite")).length,
    );
  });

  it("refuses a migration edited after it was applied", async () => {
    const folder = join(dir, "migrations");
    writeMigration(folder, "001_a", `CREATE TABLE "a" ("id" TEXT);`);
    const db = new BetterSqlite3(join(dir, "x.db"));
    try {
      await applyMigrations(sqliteMigrationDriver(db), readMigrations(folder));
      writeMigration(folder, "001_a", `CREATE TABLE "a" ("id" INTEGER);`);
      await expect(
        applyMigrations(sqliteMigrationDriver(db), readMigrations(folder)),
      ).rejects.toThrow("Migration 001_a was modified after it was applied");
    } finally {
      db.close();
    }
  });

  it("rolls back a failing migration, records why, and applies it once fixed", async () => {
    const folder = join(dir, "migrations");
    writeMigration(folder, "001_a", `CREATE TABLE "a" ("id" TEXT);`);
    writeMigration(folder, "002_b", `CREATE TABLE "b" ("id" TEXT); CREATE TABLE "a" ("id" TEXT);`);
    const file = join(dir, "x.db");
    const db = new BetterSqlite3(file);
    try {
      const driver = sqliteMigrationDriver(db);
      await expect(applyMigrations(driver, readMigrations(folder))).rejects.toThrow(
        "Migration 002_b failed and was rolled back",
      );
      // Nothing of 002_b stayed: its first statement was rolled back with the second.
      const tables = db.prepare(`SELECT name FROM sqlite_master WHERE name = 'b'`).all();
      expect(tables).toEqual([]);
      const failed = rows(file).find((r) => r.migration_name === "002_b");
      expect(failed?.finished_at).toBeNull();
      expect(failed?.rolled_back_at).toBeTypeOf("number");
      expect(failed?.logs).toContain("already exists");

      writeMigration(folder, "002_b", `CREATE TABLE "b" ("id" TEXT);`);
      expect(await applyMigrations(driver, readMigrations(folder))).toEqual(["002_b"]);
    } finally {
      db.close();
    }
  });
});
