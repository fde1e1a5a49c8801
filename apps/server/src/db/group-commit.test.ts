import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DirectSql, query, type SqlStatement, sqliteDirectSql } from "./direct-sql.js";
import { GroupCommit } from "./group-commit.js";

/** Writes queued together share a transaction, on a real SQLite file. */

let dir: string;
let connection: BetterSqlite3.Database;
let direct: DirectSql;
let transactions: number;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "skillrun-group-commit-"));
  connection = new BetterSqlite3(join(dir, "db.sqlite"));
  connection.exec("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)");
  const real = sqliteDirectSql(connection);
  transactions = 0;
  // The real driver, counting the transactions it is asked for.
  direct = {
    ...real,
    run: (plan) => {
      transactions += 1;
      return real.run(plan);
    },
  };
});

afterEach(() => {
  connection.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Writes as a SQLite server's new runs are: all those queued together in one transaction. */
const groupCommit = (maxGroup?: number) =>
  new GroupCommit<SqlStatement[]>(
    (writes) =>
      direct.run(function* () {
        for (const { sql, params } of writes.flat()) yield* query(sql, params);
      }),
    maxGroup,
  );

const insert = (id: number, name: string | null): SqlStatement[] => [
  { sql: "INSERT INTO items (id, name) VALUES (?, ?)", params: [id, name] },
];
const names = () =>
  (connection.prepare("SELECT name FROM items ORDER BY id").all() as { name: string }[]).map(
    (row) => row.name,
  );

describe("GroupCommit", () => {
  it("commits the writes queued in one turn in one transaction, each settled once committed", async () => {
    const commits = groupCommit();
    const settled = await Promise.all([
      commits.write(insert(1, "a")),
      commits.write(insert(2, "b")),
      commits.write(insert(3, "c")),
    ]);
    expect(settled).toEqual([undefined, undefined, undefined]);
    expect(transactions).toBe(1);
    expect(names()).toEqual(["a", "b", "c"]);
    // A later turn is a transaction of its own.
    await commits.write(insert(4, "d"));
    expect(transactions).toBe(2);
  });

  it("commits a turn of more writes than a group holds in groups of at most that many", async () => {
    const commits = groupCommit(2);
    await Promise.all(["a", "b", "c", "d", "e"].map((name, i) => commits.write(insert(i, name))));
    expect(transactions).toBe(3);
    expect(names()).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("fails only the write that fails: the others of its group are committed", async () => {
    const commits = groupCommit();
    const results = await Promise.allSettled([
      commits.write(insert(1, "a")),
      // NOT NULL: this one cannot be written.
      commits.write(insert(2, null)),
      commits.write(insert(3, "c")),
    ]);
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/NOT NULL/);
    expect(names()).toEqual(["a", "c"]);
  });

  it("rejects a lone write that fails, writing nothing", async () => {
    const commits = groupCommit();
    await expect(commits.write(insert(1, null))).rejects.toThrow(/NOT NULL/);
    expect(transactions).toBe(1);
    expect(names()).toEqual([]);
  });
});
