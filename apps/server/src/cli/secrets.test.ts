import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../db/database.js";
import { SecretRepository } from "../db/repositories/secrets.js";
import { systemClock } from "../domain/clock.js";
import { SecretBox } from "../secrets/secret-box.js";
import { keptSecretsKey } from "../secrets/secrets-key.js";
import { builtCli } from "../test-support/built-cli.js";

// The built `skillrun secrets …` commands as a shell runs them: the value arrives on stdin.
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "skillrun-cli-secrets-"));
  env = { ...process.env, DATABASE_URL: `file:${join(dir, "skillrun.db")}`, LOG_LEVEL: "silent" };
  // No SECRETS_KEY: the key is made beside the database, as on a fresh install.
  delete env.SECRETS_KEY;
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function skillrun(args: string[], input = "", extraEnv: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [builtCli(), ...args], {
    env: { ...env, ...extraEnv },
    input,
    encoding: "utf8",
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** What the database holds for alice's secret `name`, opened with the kept key. */
async function storedValue(name: string): Promise<string | undefined> {
  const db = await openDatabase(env.DATABASE_URL as string);
  try {
    const box = new SecretBox(() => keptSecretsKey(join(dir, "secrets-key")));
    const secrets = new SecretRepository(db.prisma, systemClock, box);
    return (await secrets.reveal("alice", [name])).values[name];
  } finally {
    await db.close();
  }
}

describe("skillrun secrets", () => {
  it("list needs no key: it makes no key file", () => {
    const listed = skillrun(["secrets", "list", "--owner", "alice"]);
    expect(listed).toMatchObject({ code: 0 });
    expect(listed.stdout).toContain('No secrets for owner "alice"');
    expect(existsSync(join(dir, "secrets-key"))).toBe(false);
  });

  it("set reads the value from stdin without its trailing newline, and never prints it", async () => {
    const set = skillrun(["secrets", "set", "api_token", "--owner", "alice"], "tok-8e1f-value\n");
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toMatch(
      /^Set secret "api_token" for owner "alice" \(created \S+Z, updated \S+Z\)/,
    );
    expect(set.stdout + set.stderr).not.toContain("tok-8e1f-value");
    expect(await storedValue("api_token")).toBe("tok-8e1f-value");
    // The key it was sealed under was made beside the database, for this user only.
    expect(statSync(join(dir, "secrets-key")).mode & 0o777).toBe(0o600);

    // Only one trailing newline goes: a value's own lines stay.
    expect(skillrun(["secrets", "set", "pem", "--owner", "alice"], "line 1\nline 2\r\n").code).toBe(
      0,
    );
    expect(await storedValue("pem")).toBe("line 1\nline 2");
  });

  it("list shows names and dates, never values", () => {
    const listed = skillrun(["secrets", "list", "--owner", "alice"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^api_token {2}created \S+Z {2}updated \S+Z\npem {2}created/);
    expect(listed.stdout).not.toContain("tok-8e1f-value");
    expect(skillrun(["secrets", "list", "--owner", "bob"]).stdout).toContain("No secrets");
  });

  it("refuses an empty value, a NUL and a bad name, storing nothing", async () => {
    const empty = skillrun(["secrets", "set", "blank", "--owner", "alice"], "\n");
    expect(empty).toMatchObject({
      code: 1,
      stderr: "skillrun: a secret's value cannot be empty\n",
    });
    const nul = skillrun(["secrets", "set", "blank", "--owner", "alice"], "a\u0000b");
    expect(nul.stderr).toBe("skillrun: a secret's value cannot contain NUL characters\n");
    const badName = skillrun(["secrets", "set", "api-token", "--owner", "alice"], "x");
    expect(badName.code).toBe(1);
    expect(badName.stderr).toContain("a secret name is a letter or _, then letters, digits or _");
    expect(await storedValue("blank")).toBeUndefined();
  });

  it("delete deletes once, then says there is no such secret", () => {
    expect(skillrun(["secrets", "delete", "pem", "--owner", "alice"])).toMatchObject({
      code: 0,
      stdout: 'Deleted secret "pem" of owner "alice".\n',
    });
    const again = skillrun(["secrets", "delete", "pem", "--owner", "alice"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('owner "alice" has no secret "pem"');
  });

  it("needs a name and --owner", () => {
    expect(skillrun(["secrets", "set", "x"]).stderr).toContain("secrets set needs --owner <owner>");
    expect(skillrun(["secrets", "delete", "--owner", "a"]).stderr).toContain(
      "secrets delete needs the secret's name",
    );
    expect(skillrun(["secrets", "list"]).code).toBe(2);
  });

  it("stops on an unusable SECRETS_KEY, without quoting it", () => {
    const result = skillrun(["secrets", "list", "--owner", "alice"], "", {
      SECRETS_KEY: "not-really-a-key",
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("SECRETS_KEY: not a secrets key: expected 32 random bytes");
    expect(result.stderr).not.toContain("not-really-a-key");
  });
});
