import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "../../test/support/http.js";
import { RunClient } from "../../test/support/runs.js";
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
    const serving = await serveDemo();
    try {
      expect(serving.out()).toContain(`API reference:  ${serving.url}/docs`);
      const response = await fetch(`${serving.url}/v1/skill/list`, {
        headers: { authorization: `Bearer ${serving.key}` },
      });
      expect(response.status).toBe(200);
      const skills = (await response.json()) as { id: string; owner: string }[];
      expect(skills.map((s) => s.id)).toContain("skill_sum");
      expect(skills.every((s) => s.owner === "demo")).toBe(true);
      // No VIDEO_SIGNING_SECRET: one was made beside the database, for this user only.
      expect(statSync(join(dir, "video-signing-secret")).mode & 0o777).toBe(0o600);
    } finally {
      expect(await serving.stop()).toBe(0);
    }
  });

  it("serve --demo on a port of its own: the demo shop skill, given no inputs, orders in that server's shop", async () => {
    // PORT=0: whatever free port the system gives, not the 8080 the skill file names.
    const serving = await serveDemo();
    try {
      const demo = new RunClient(serving.url, serving.key);
      const skill = await call(serving.url, "GET", "/v1/skill/skill_demo_shop_order", {
        key: serving.key,
      });
      const inputs = (skill.body as { inputs: { json_key: string; default?: unknown }[] }).inputs;
      expect(inputs.find((input) => input.json_key === "shop_url")?.default).toBe(
        `${serving.url}/demo/`,
      );

      const { id } = await demo.start("skill_demo_shop_order");
      const run = await demo.ended(id, 60_000);
      expect(run.state, JSON.stringify(run.data)).toBe("finish");
      // The defaults: 3 seats of the pro plan, read off the receipt of the shop it opened.
      expect(run.data).toMatchObject({
        total: "87.00",
        order_number: expect.stringMatching(/^SR-\d{6}$/),
      });
    } finally {
      expect(await serving.stop()).toBe(0);
    }
  }, 90_000);
});

interface Serving {
  url: string;
  key: string;
  out: () => string;
  /** Sends SIGTERM; resolves to the exit code. */
  stop: () => Promise<number | null>;
}

/** `skillrun serve --demo` on a free port, once it has printed its address and key. */
async function serveDemo(): Promise<Serving> {
  const server: ChildProcess = spawn(
    process.execPath,
    ["--import", "tsx", cli, "serve", "--demo"],
    {
      env: { ...env, PORT: "0", VIDEO_DIR: join(dir, "videos") },
      cwd: serverDir,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const exited = new Promise<number | null>((resolve) => server.once("exit", resolve));
  const stop = () => {
    server.kill("SIGTERM");
    return exited;
  };
  let out = "";
  server.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  try {
    await expect.poll(() => out, { timeout: 20_000 }).toMatch(/API key \(owner "demo"\): sk_/);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url: /listening on (http:\/\/\S+)/.exec(out)?.[1] as string,
    key: /API key \(owner "demo"\): (\S+)/.exec(out)?.[1] as string,
    out: () => out,
    stop,
  };
}
