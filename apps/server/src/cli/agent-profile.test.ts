import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentProcess } from "../../test/support/skillrun-process.js";
import { builtCli } from "../test-support/built-cli.js";

/**
 * `skillrun agent --profile-dir` refuses, before it calls the server, a folder it cannot use:
 * the built command, as a user runs it. The server named is never reached (nothing listens).
 */

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "skillrun-agent-profile-cli-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function agent(...args: string[]): Promise<{ code: number | null; stderr: string }> {
  try {
    await promisify(execFile)(
      process.execPath,
      [builtCli(), "agent", "--server", "http://127.0.0.1:9", ...args],
      {
        env: { ...process.env, SKILLRUN_API_KEY: "sk_test_unused", LOG_LEVEL: "silent" },
        // An agent that did not refuse runs until stopped: stopped here, the test fails on it.
        timeout: 20_000,
        killSignal: "SIGTERM",
      },
    );
    return { code: 0, stderr: "" };
  } catch (error) {
    const failed = error as { code: number | null; stderr: string };
    return { code: failed.code, stderr: failed.stderr };
  }
}

describe("skillrun agent --profile-dir refuses", () => {
  it("a folder that does not exist, naming it", async () => {
    const missing = join(dir, "no-such-profile");
    expect(await agent("--profile-dir", missing)).toEqual({
      code: 2,
      stderr: `--profile-dir: ${missing} does not exist\n`,
    });
  });

  it("a file that is not a folder", async () => {
    const file = join(dir, "a-file");
    await writeFile(file, "");
    expect(await agent("--profile-dir", file)).toEqual({
      code: 2,
      stderr: `--profile-dir: ${file} is not a folder\n`,
    });
  });

  it("writable use with more than one run at a time", async () => {
    expect(await agent("--profile-dir", dir, "--profile-writable", "--concurrency", "2")).toEqual({
      code: 2,
      stderr: `--profile-writable runs one run at a time (Chromium locks a profile folder to one browser): use --concurrency 1, or leave out --profile-writable to give each run a copy of ${dir}\n`,
    });
  });

  it("writable use of a folder a running Chromium holds", async () => {
    const held = join(dir, "held");
    await mkdir(held);
    // As Chromium marks a folder it holds: this host and a live process (this one).
    await symlink(`${hostname()}-${process.pid}`, join(held, "SingletonLock"));
    const result = await agent("--profile-dir", held, "--profile-writable");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`--profile-dir: ${held} is in use by a running Chromium`);
  });

  it("no folder a running Chromium holds when each run gets a copy of it", async () => {
    const held = join(dir, "held-read-only");
    await mkdir(held);
    await symlink(`${hostname()}-${process.pid}`, join(held, "SingletonLock"));
    const started = await startAgentProcess("http://127.0.0.1:9", "sk_test_unused", {
      args: ["--profile-dir", held],
    });
    try {
      expect(await started.printed(/takes client runs/)).toContain(
        `on copies of the browser profile folder ${held}`,
      );
    } finally {
      await started.stop("SIGKILL");
    }
  }, 60_000);

  it("--profile-writable without a folder", async () => {
    expect(await agent("--profile-writable")).toEqual({
      code: 2,
      stderr: "--profile-writable needs --profile-dir <folder>\n",
    });
  });
});
