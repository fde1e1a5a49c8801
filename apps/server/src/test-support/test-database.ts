import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { Flavour } from "../db/database-url.js";

/** The PostgreSQL server tests create their databases on, unless TEST_DATABASE_URL names another. */
export const DEFAULT_TEST_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/postgres";

/** Names of the databases tests create (and drop again): `skillrun_test_<16 hex digits>`. */
export const TEST_DATABASE_PREFIX = "skillrun_test_";

/**
 * The flavour the tests run on: TEST_FLAVOUR=sqlite (the default) or TEST_FLAVOUR=postgres, the
 * latter on the server at TEST_DATABASE_URL.
 */
export function testFlavour(): Flavour {
  const flavour = process.env.TEST_FLAVOUR ?? "sqlite";
  if (flavour === "sqlite" || flavour === "postgres") return flavour;
  throw new Error(`TEST_FLAVOUR must be sqlite or postgres, got "${flavour}"`);
}

/** A fresh, empty database of its own for one test or test server. */
export interface TestDatabase {
  flavour: Flavour;
  /** Its DATABASE_URL, for openDatabase or a process a test starts. */
  url: string;
  /** Throws the database away (drops it, or deletes its file), whoever is still connected. */
  drop(): Promise<void>;
}

/** Creates a throwaway database of `flavour` (TEST_FLAVOUR's by default); not yet migrated. */
export async function createTestDatabase(flavour = testFlavour()): Promise<TestDatabase> {
  return flavour === "sqlite" ? createSqliteDatabase() : createPostgresDatabase();
}

function createSqliteDatabase(): TestDatabase {
  const dir = mkdtempSync(join(tmpdir(), "skillrun-db-"));
  return {
    flavour: "sqlite",
    url: `file:${join(dir, "skillrun.db")}`,
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

async function createPostgresDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.TEST_DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL;
  const name = `${TEST_DATABASE_PREFIX}${randomBytes(8).toString("hex")}`;
  await onServer(serverUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    flavour: "postgres",
    url: url.toString(),
    // FORCE ends the connections still open on it (a worker process killed mid-run, a pool).
    drop: () => onServer(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

/** Runs one statement on the server's maintenance database, failing clearly if it is down. */
async function onServer(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5000 });
  client.on("error", () => {});
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `These tests need PostgreSQL, and the server at TEST_DATABASE_URL (${redacted(serverUrl)}) cannot be reached (${error instanceof Error ? error.message : String(error)}). Start a PostgreSQL server there, point TEST_DATABASE_URL at one, or run the tests with "npm test", which starts a throwaway one.`,
    );
  }
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The URL without its password, for messages. */
function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    return "an unparsable URL";
  }
}
