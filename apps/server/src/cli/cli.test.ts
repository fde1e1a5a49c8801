import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { paths } from "../paths.js";

// The real `skillrun` command, run from source in its own process.
const serverDir = join(paths.root, "apps", "server");
const cli = join(serverDir, "src", "cli.ts");
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "skillrun-cli-"));
  env = { ...process.env, DATABASE_URL: `file:${join(dir, "skillrun.db")}`, LOG_LEVEL: "silent" };
  delete env.VIDEO_SIGNING_SECRET;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function skillrun(...args: string[]) {
  const result = spawnSync(process.execPath, ["--import", "tsx", cli, ...args], {
    env,
    // From the server's folder, where `--import tsx` resolves; the database is in `dir`.
    cwd: serverDir,
    encoding: "utf8",
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("skillrun CLI", () => {
  it("migrate applies the migrations once, then reports the database up to date", () => {
    const first = skillrun("migrate");
    expect(first).toMatchObject({ code: 0 });
    expect(first.stdout).toMatch(/^Applied \d+ migration\(s\):\n {2}\d+_init/);
    expect(skillrun("migrate").stdout.trim()).toBe("Database is up to date.");
  });

  it("keys create prints a key once; list shows only its prefix; revoke revokes it", () => {
    const created = skillrun("keys", "create", "--owner", "alice");
    expect(created.code).toBe(0);
    const key = /^(sk_[A-Za-z0-9_-]{43})$/m.exec(created.stdout)?.[1];
    const id = /Created API key (key_\S+)/.exec(created.stdout)?.[1];
    expect(key).toBeDefined();
    expect(id).toBeDefined();

    const listed = skillrun("keys", "list");
    expect(listed.stdout).toContain(`${id}  alice  ${key?.slice(0, 10)}…`);
    expect(listed.stdout).not.toContain(key);
    expect(listed.stdout).toContain("active");

    expect(skillrun("keys", "revoke", id as string)).toMatchObject({ code: 0 });
    expect(skillrun("keys", "list").stdout).toMatch(new RegExp(`${id} .* revoked `));
    const again = skillrun("keys", "revoke", id as string);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`no active API key with id "${id}"`);
  });

  it("keys create without --owner is a usage error", () => {
    const result = skillrun("keys", "create");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("keys create needs --owner <owner>");
  });

  it("skills import rejects an invalid file with file, line and reason, importing nothing", () => {
    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, "id: skill_bad\nname: Bad\nsteps:\n  - wait: 2x\n");
    const result = skillrun("skills", "import", bad, "--owner", "alice");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("nothing was imported");
    expect(result.stderr).toMatch(new RegExp(`${bad}:4:\\d+: .*"2x" is not a duration`));
  });

  it("skills import imports the example skills", () => {
    const result = skillrun("skills", "import", paths.skills, "--owner", "alice");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/created +skill_sum/);
    expect(skillrun("skills", "import", paths.skills, "--owner", "alice").stdout).toMatch(
      /unchanged +skill_sum/,
    );
  });

  it("serve --demo prints a working API key and the docs address, and stops on SIGTERM", async () => {
    const server: ChildProcess = spawn(
      process.execPath,
      ["--import", "tsx", cli, "serve", "--demo"],
      { env: { ...env, PORT: "0" }, cwd: serverDir, stdio: ["ignore", "pipe", "pipe"] },
    );
    try {
      let out = "";
      server.stdout?.on("data", (chunk: Buffer) => {
        out += chunk.toString();
      });
      await expect.poll(() => out, { timeout: 20_000 }).toMatch(/API key \(owner "demo"\): sk_/);
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1] as string;
      const key = /API key \(owner "demo"\): (\S+)/.exec(out)?.[1] as string;
      expect(out).toContain(`API reference:  ${url}/docs`);

      const response = await fetch(`${url}/v1/skill/list`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(response.status).toBe(200);
      const skills = (await response.json()) as { id: string; owner: string }[];
      expect(skills.map((s) => s.id)).toContain("skill_sum");
      expect(skills.every((s) => s.owner === "demo")).toBe(true);
      // No VIDEO_SIGNING_SECRET: one was made beside the database, for this user only.
      expect(statSync(join(dir, "video-signing-secret")).mode & 0o777).toBe(0o600);
    } finally {
      const exited = new Promise((resolve) => server.once("exit", resolve));
      server.kill("SIGTERM");
      expect(await exited).toBe(0);
    }
  });
});
