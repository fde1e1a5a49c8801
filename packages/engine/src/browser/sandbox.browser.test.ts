import { execFileSync } from "node:child_process";
import { chmod, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runsAsRoot } from "./chromium-user.js";
import { findChromium } from "./find-chromium.js";
import { type FixtureSite, startFixtureSite } from "./test-support/fixture-site.js";
import { runSkill } from "./test-support/run-skill.js";
import { scriptFile } from "./test-support/script-file.js";
import { testBrowser } from "./test-support/test-browser.js";

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(() => site.close());

const GOTO = `- goto: "{{ inputs.base }}/static"\n- assert_text: { selector: "#title", text: Nothing }\n`;

/** The user Chromium is expected to run as: `nobody` under root, else this process's user. */
function expectedUid(): number {
  if (!runsAsRoot()) return process.getuid?.() ?? -1;
  return Number(execFileSync("id", ["-u", "nobody"], { encoding: "utf8" }));
}

describe("Chromium's sandbox", () => {
  it("runs every Chromium process as an unprivileged user, each renderer sandboxed", async () => {
    const test = await testBrowser({ video: false });
    try {
      const result = await runSkill(GOTO, { base: site.base, browser: test.browser.access });
      expect(result.outcome).toBe("finished");
      const statuses = test.processes.statuses();
      expect(statuses.length).toBeGreaterThanOrEqual(3);
      expect(new Set(statuses.map((status) => status.uid))).toEqual(new Set([expectedUid()]));
      expect(expectedUid()).not.toBe(0);
      const [browser] = statuses.filter((status) => status.type === "browser");
      const renderers = statuses.filter((status) => status.type === "renderer");
      expect(renderers.length).toBeGreaterThan(0);
      for (const renderer of renderers) {
        // Without the sandbox a renderer has no seccomp filter and shares the browser's user
        // namespace; with it, both differ.
        expect(renderer.seccomp).toBe(2);
        expect(renderer.userNamespace).not.toBe(browser?.userNamespace);
      }
      expect((await test.browser.close()).problems).toEqual([]);
      expect(test.processes.count()).toBe(0);
    } finally {
      await test.dispose();
    }
  }, 30_000);

  it("where it cannot start, runs Chromium without it and warns on every run", async () => {
    // A Chromium that fails as Chromium does where user namespaces are unavailable.
    const fake = await scriptFile(
      "unsandboxable-chromium",
      [
        "#!/bin/sh",
        'echo launched >> "$(dirname "$0")/launches"',
        `case " $* " in *" --no-sandbox "*) exec ${findChromium(process.env)} "$@" ;; esac`,
        'echo "[1:1:FATAL:zygote_host_impl_linux.cc(128)] No usable sandbox! See https://chromium.googlesource.com/chromium/src/+/main/docs/linux/suid_sandbox_development.md" >&2',
        "exit 1",
        "",
      ].join("\n"),
    );
    const launches = join(dirname(fake.path), "launches");
    await writeFile(launches, "");
    await chmod(launches, 0o666);
    const warning =
      /^Chromium runs WITHOUT its sandbox, so a page exploiting a flaw in Chromium gets every right of user \S+ \(see "Chromium" in docs\/security\.md\); with the sandbox: could not start Chromium \(.+\): it exited with code 1; it said: .*No usable sandbox!/;
    try {
      for (const launchesSoFar of [2, 3]) {
        const test = await testBrowser({ executablePath: fake.path, video: false });
        try {
          const result = await runSkill(GOTO, { base: site.base, browser: test.browser.access });
          expect(result.outcome).toBe("finished");
          const renderers = test.processes.statuses().filter((s) => s.type === "renderer");
          expect(renderers.length).toBeGreaterThan(0);
          for (const renderer of renderers) expect(renderer.seccomp).toBe(0);
          const { problems } = await test.browser.close();
          expect(problems).toHaveLength(1);
          expect(problems[0]).toMatch(warning);
          // The first run tries the sandbox once; later runs know it fails and go straight on.
          expect((await readFile(launches, "utf8")).split("\n").filter(Boolean)).toHaveLength(
            launchesSoFar,
          );
          expect(test.processes.count()).toBe(0);
        } finally {
          await test.dispose();
        }
      }
    } finally {
      await fake.dispose();
    }
  }, 60_000);

  it("refuses to start Chromium as a user that does not exist (root only; else runs as itself)", async () => {
    const test = await testBrowser({ video: false, user: "skillrun-no-such-user" });
    try {
      const result = await runSkill(GOTO, { base: site.base, browser: test.browser.access });
      if (runsAsRoot()) {
        expect(result.outcome === "failed" && result.error.message).toMatch(
          /^could not start Chromium \(.+\): there is no user "skillrun-no-such-user" to run Chromium as$/,
        );
      } else {
        expect(result.outcome).toBe("finished");
      }
      expect(test.processes.count()).toBe(0);
    } finally {
      await test.dispose();
    }
  }, 30_000);
});
