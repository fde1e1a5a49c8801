import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skillrunInProcess } from "../../test/support/cli-in-process.js";
import { call } from "../../test/support/http.js";
import { RunClient } from "../../test/support/runs.js";
import { paths } from "../paths.js";
import { builtCli } from "../test-support/built-cli.js";

// The one-off commands run in this process, through the command line's own entry (`runCli`, what
// `dist/cli.js` calls with its arguments), with what they print captured; starting a process per
// command would only test Node's start-up a dozen times. What needs a real process (the exit
// code the shell sees, a server stopped by a signal) runs the built command.
let dir: string;
let env: NodeJS.ProcessEnv;
const saved = { DATABASE_URL: process.env.DATABASE_URL, LOG_LEVEL: process.env.LOG_LEVEL };

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "skillrun-cli-"));
  env = { ...process.env, DATABASE_URL: `file:${join(dir, "skillrun.db")}`, LOG_LEVEL: "silent" };
  delete env.VIDEO_SIGNING_SECRET;
  // The commands read their configuration from the environment, as in a shell.
  process.env.DATABASE_URL = env.DATABASE_URL;
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

describe("skillrun CLI", () => {
  it("migrate applies the migrations once, then reports the database up to date", async () => {
    const first = await skillrun("migrate");
    expect(first).toMatchObject({ code: 0 });
    expect(first.stdout).toMatch(/^Applied \d+ migration\(s\):\n {2}\d+_init/);
    expect((await skillrun("migrate")).stdout.trim()).toBe("Database is up to date.");
  });

  it("keys create prints a key once; list shows only its prefix; revoke revokes it", async () => {
    const created = await skillrun("keys", "create", "--owner", "alice");
    expect(created.code).toBe(0);
    const key = /^(sk_[A-Za-z0-9_-]{43})$/m.exec(created.stdout)?.[1];
    const id = /Created API key (key_\S+)/.exec(created.stdout)?.[1];
    expect(key).toBeDefined();
    expect(id).toBeDefined();

    const listed = await skillrun("keys", "list");
    expect(listed.stdout).toContain(`${id}  alice  ${key?.slice(0, 10)}…`);
    expect(listed.stdout).not.toContain(key);
    expect(listed.stdout).toContain("active");

    expect(await skillrun("keys", "revoke", id as string)).toMatchObject({ code: 0 });
    expect((await skillrun("keys", "list")).stdout).toMatch(new RegExp(`${id} .* revoked `));
    const again = await skillrun("keys", "revoke", id as string);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`no active API key with id "${id}"`);
  });

  it("keys create without --owner is a usage error", async () => {
    const result = await skillrun("keys", "create");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("keys create needs --owner <owner>");
  });

  it("skills import rejects an invalid file with file, line and reason, importing nothing", async () => {
    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, "id: skill_bad\nname: Bad\nsteps:\n  - wait: 2x\n");
    const result = await skillrun("skills", "import", bad, "--owner", "alice");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("nothing was imported");
    expect(result.stderr).toMatch(new RegExp(`${bad}:4:\\d+: .*"2x" is not a duration`));
  });

  it("skills import imports the example skills", async () => {
    const result = await skillrun("skills", "import", paths.skills, "--owner", "alice");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/created +skill_sum/);
    expect((await skillrun("skills", "import", paths.skills, "--owner", "alice")).stdout).toMatch(
      /unchanged +skill_sum/,
    );
  });

  it("skills list, export and delete: an export imports back unchanged; a called skill stays", async () => {
    await skillrun("skills", "import", paths.skills, "--owner", "carol");
    const listed = await skillrun("skills", "list", "--owner", "carol");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^skill_sum {2}[0-9a-f]{12} {2}Sum {2}\(changed \S+\)$/m);

    const exported = await skillrun("skills", "export", "skill_sum", "--owner", "carol");
    expect(exported.code).toBe(0);
    expect(exported.stdout).toMatch(/^id: skill_sum\nname: Sum\n/);
    // The file's text as imported, comments and layout kept.
    const written = readFileSync(join(paths.skills, "sum.yaml"), "utf8");
    expect(exported.stdout).toBe(`${written.trimEnd()}\n`);
    expect(exported.stdout).not.toContain("timeoutMs");
    const file = join(dir, "exported.yaml");
    writeFileSync(file, exported.stdout);
    expect((await skillrun("skills", "import", file, "--owner", "carol")).stdout).toMatch(
      /unchanged +skill_sum/,
    );

    const called = await skillrun("skills", "delete", "skill_backoffice_login", "--owner", "carol");
    expect(called.code).toBe(1);
    expect(called.stderr).toMatch(/is called by skill_backoffice_\w+/);
    const deleted = await skillrun("skills", "delete", "skill_sum", "--owner", "carol");
    expect([deleted.code, deleted.stdout]).toEqual([
      0,
      'Deleted skill "skill_sum" of owner "carol"; its runs are kept.\n',
    ]);
    expect((await skillrun("skills", "list", "--owner", "carol")).stdout).not.toContain(
      "skill_sum",
    );
    const again = await skillrun("skills", "delete", "skill_sum", "--owner", "carol");
    expect([again.code, again.stderr]).toEqual([
      1,
      'skillrun: owner "carol" has no skill "skill_sum"\n',
    ]);
  });

  it("reports a failure as skillrun: <message> with exit code 1", async () => {
    process.env.DATABASE_URL = "mysql://nowhere/db";
    try {
      const result = await skillrun("keys", "list");
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^skillrun: DATABASE_URL must start with file:/);
    } finally {
      process.env.DATABASE_URL = env.DATABASE_URL;
    }
  });

  it("the built command exits with the code the command returned", () => {
    const usage = spawnSync(process.execPath, [builtCli(), "keys", "create"], {
      env,
      encoding: "utf8",
    });
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain("keys create needs --owner <owner>");
  });

  it("serve --demo prints a working API key, the dashboard's and the docs' addresses, and stops on SIGTERM", async () => {
    const serving = await serveDemo();
    try {
      expect(serving.out()).toContain(`Dashboard:      ${serving.url}/ui/`);
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

/** The built `skillrun serve --demo` on a free port, once it has printed its address and key. */
async function serveDemo(): Promise<Serving> {
  const server: ChildProcess = spawn(process.execPath, [builtCli(), "serve", "--demo"], {
    env: { ...env, PORT: "0", VIDEO_DIR: join(dir, "videos") },
    stdio: ["ignore", "pipe", "pipe"],
  });
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
