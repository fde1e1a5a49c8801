import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skillrunInProcess } from "../../test/support/cli-in-process.js";
import { withRepositories } from "./with-database.js";

// `skillrun keys create --scope`, in this process through the command line's entry, on a SQLite
// file of its own (the command reads DATABASE_URL as in a shell).
let dir: string;
const saved = { DATABASE_URL: process.env.DATABASE_URL, LOG_LEVEL: process.env.LOG_LEVEL };

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "skillrun-cli-keys-"));
  process.env.DATABASE_URL = `file:${join(dir, "skillrun.db")}`;
  process.env.LOG_LEVEL = "silent";
});
afterAll(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  rmSync(dir, { recursive: true, force: true });
});

const skillrun = skillrunInProcess;

async function scopesOf(stdout: string) {
  const key = /^(sk_\S+)$/m.exec(stdout)?.[1] as string;
  return (await withRepositories((repos) => repos.apiKeys.identify(key)))?.scopes;
}

describe("skillrun keys create --scope", () => {
  it("without --scope makes an admin key, and says so", async () => {
    const made = await skillrun("keys", "create", "--owner", "alice");
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/for owner "alice" with scopes admin\./);
    expect(await scopesOf(made.stdout)).toEqual(["admin"]);
  });

  it("takes --scope repeated and as comma lists, and prints the scopes the key has", async () => {
    const made = await skillrun(
      "keys",
      "create",
      "--owner",
      "alice",
      "--name",
      "ci",
      "--scope",
      "runs:write, runs:read",
      "--scope",
      "skills:write",
    );
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain("with scopes runs:read, runs:write, skills:write.");
    expect(await scopesOf(made.stdout)).toEqual(["runs:read", "runs:write", "skills:write"]);
    const listed = await skillrun("keys", "list");
    expect(listed.stdout).toMatch(/ {2}runs:read,runs:write,skills:write {2}"ci" {2}created /);
  });

  it("refuses an unknown or empty scope, naming the known ones, and makes no key", async () => {
    const before = (await skillrun("keys", "list")).stdout;
    for (const scope of ["runs:delete", "", "admin,root"]) {
      const refused = await skillrun("keys", "create", "--owner", "alice", "--scope", scope);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("a scope is one of: admin, runs:read, runs:write");
    }
    expect((await skillrun("keys", "list")).stdout).toBe(before);
  });
});
