import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { getPriority, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findChromium } from "./find-chromium.js";
import { probeVideo } from "./test-support/ffprobe.js";
import { type FixtureSite, startFixtureSite } from "./test-support/fixture-site.js";
import { runSkill } from "./test-support/run-skill.js";
import { scriptFile } from "./test-support/script-file.js";
import { type TestBrowser, testBrowser, testBrowserOnAPage } from "./test-support/test-browser.js";

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(() => site.close());

describe("a run's browser", () => {
  it("is never started by a run without browser steps, which gets no video", async () => {
    const test = await testBrowser();
    try {
      const result = await runSkill(`- set: { a: 1 }\n- wait: 100ms\n`, {
        base: site.base,
        browser: test.browser.access,
      });
      expect(result.outcome).toBe("finished");
      expect(test.processes.count()).toBe(0);
      expect(await test.browser.close()).toEqual({ video: null, problems: [] });
      await expect(stat(test.videoPath)).rejects.toThrow(/ENOENT/);
    } finally {
      await test.dispose();
    }
  });

  it("starts once for a step retried while Chromium is still starting", async () => {
    // A Chromium that takes a second to start, as on a busy machine.
    const slow = await scriptFile(
      "slow-chromium",
      `#!/bin/sh\nsleep 1\nexec ${findChromium(process.env)} "$@"\n`,
    );
    const test = await testBrowser({ executablePath: slow.path, video: false });
    const seen = { most: 0 };
    const sampler = setInterval(() => {
      seen.most = Math.max(seen.most, test.processes.browsers().length);
    }, 20);
    try {
      const result = await runSkill(
        `
- timeout: 400ms
  retry: { attempts: 3 }
  optional: true
  wait_for: { selector: body, state: attached }
# However long the start takes on a busy machine, the browser it waits for is the same one.
- timeout: 30s
  wait_for: { selector: body, state: attached }
- goto: "{{ inputs.base }}/static"
`,
        { base: site.base, browser: test.browser.access },
      );
      expect(result.outcome, JSON.stringify(result)).toBe("finished");
      const failed = result.events.filter((event) => event.type === "step_failed");
      expect(failed.length).toBeGreaterThanOrEqual(2);
      expect(seen.most).toBe(1);
      await test.browser.close();
      expect(test.processes.count()).toBe(0);
    } finally {
      clearInterval(sampler);
      await test.dispose();
      await slow.dispose();
    }
  }, 30_000);

  it("closes at once while a browser step is still waiting, and ends Chromium", async () => {
    const test = await testBrowser({ viewport: { width: 640, height: 480 } });
    try {
      let closing: Promise<unknown> | undefined;
      let closedInMs = 0;
      const result = await runSkill(
        `
- goto: "{{ inputs.base }}/static"
- id: never
  wait_for: { selector: "#never" }
`,
        {
          base: site.base,
          browser: test.browser.access,
          onEvent: (event) => {
            if (event.type === "step_started" && event.step.id === "never") {
              setTimeout(() => {
                const started = Date.now();
                closing = test.browser.close().then(() => {
                  closedInMs = Date.now() - started;
                });
              }, 300);
            }
          },
        },
      );
      await closing;
      expect(closedInMs).toBeLessThan(3000);
      expect(result.outcome === "failed" && result.error.step).toBe("never");
      expect(result.outcome === "failed" && result.error.message).toContain('"#never"');
      expect(test.processes.count()).toBe(0);
      // The video of what happened until then is kept.
      expect((await test.browser.close()).video?.path).toBe(test.videoPath);
    } finally {
      await test.dispose();
    }
  }, 30_000);

  it("can be closed before it was ever opened, and repeatedly; it refuses steps once closed", async () => {
    const test = await testBrowser();
    try {
      const first = await test.browser.close();
      expect(first).toEqual({ video: null, problems: [] });
      expect(await test.browser.close()).toBe(first);
      const result = await runSkill(`- goto: "{{ inputs.base }}/static"\n`, {
        base: site.base,
        browser: test.browser.access,
      });
      expect(result.outcome === "failed" && result.error.message).toBe(
        "the run's browser is closed",
      );
      expect(test.processes.count()).toBe(0);
    } finally {
      await test.dispose();
    }
  });

  it("fails the first browser step, saying where it looked, when Chromium cannot be found", async () => {
    const test = await testBrowser({
      executablePath: () => findChromium({ PATH: "/nonexistent-bin" }, ["/nonexistent/chromium"]),
    });
    try {
      const result = await runSkill(`- log: starting\n- goto: "{{ inputs.base }}/static"\n`, {
        base: site.base,
        browser: test.browser.access,
      });
      expect(result.outcome === "failed" && result.error).toEqual({
        step: "step 2 (goto)",
        message:
          "Chromium was not found: CHROMIUM_PATH is not set; looked at /nonexistent/chromium; chromium, chromium-browser, google-chrome on PATH (/nonexistent-bin). Install Debian's chromium package (apt-get install chromium) or set CHROMIUM_PATH to a Chromium or Chrome executable.",
      });
      expect(await test.browser.close()).toEqual({ video: null, problems: [] });
    } finally {
      await test.dispose();
    }
  });

  it("fails the first browser step with Chromium's own words when it cannot start", async () => {
    const broken = await scriptFile(
      "broken-chromium",
      '#!/bin/sh\necho "error while loading shared libraries: libnss3.so" >&2\nexit 127\n',
    );
    const failing = await testBrowser({ executablePath: broken.path });
    try {
      const result = await runSkill(`- goto: "{{ inputs.base }}/static"\n`, {
        base: site.base,
        browser: failing.browser.access,
      });
      expect(result.outcome === "failed" && result.error.message).toBe(
        `could not start Chromium (${broken.path}): it exited with code 127; it said: error while loading shared libraries: libnss3.so`,
      );
      expect(await failing.browser.close()).toEqual({ video: null, problems: [] });
    } finally {
      await failing.dispose();
      await broken.dispose();
    }
  });

  /** Runs a page in the test's browser, then stops its Chromium as a hung one; its pid. */
  async function hangAfterAPage(test: TestBrowser): Promise<number> {
    const result = await runSkill(`- goto: "{{ inputs.base }}/static"\n`, {
      base: site.base,
      browser: test.browser.access,
    });
    expect(result.outcome).toBe("finished");
    const [pid, ...others] = test.processes.browsers();
    expect(others).toEqual([]);
    process.kill(Number(pid), "SIGSTOP");
    return pid as number;
  }

  it("runs every thread of every process below the priority of the thread that started it", async () => {
    const test = await testBrowserOnAPage(site.base);
    try {
      const statuses = test.processes.statuses();
      // The browser, its zygotes and at least one renderer, each with its threads.
      expect(statuses.length).toBeGreaterThan(2);
      const below = Math.min(getPriority() + 5, 19);
      expect(new Set(statuses.flatMap((status) => status.niceValues))).toEqual(new Set([below]));
    } finally {
      await test.dispose();
    }
  }, 30_000);

  it("puts its browser's session in an autogroup below every other session's", async () => {
    const test = await testBrowserOnAPage(site.base);
    try {
      const [browser] = test.processes.browsers();
      // A kernel built without autogroups has neither file; with them (Debian's), the browser's
      // session is weighed for the CPU as a whole, against the server's and its run process's.
      if (!existsSync("/proc/sys/kernel/sched_autogroup_enabled")) {
        expect(existsSync(`/proc/${browser}/autogroup`)).toBe(false);
        return;
      }
      expect(readFileSync(`/proc/${browser}/autogroup`, "utf8")).toMatch(/ nice 5\n$/);
      // This process's session has an autogroup of nice 0, or is in the root one (a session no
      // setsid made since boot, as under some CI runners), which reads empty and weighs as nice 0.
      expect(readFileSync("/proc/self/autogroup", "utf8")).toMatch(/^$| nice 0\n$/);
    } finally {
      await test.dispose();
    }
  }, 30_000);

  it("ends its Chromium by killing it, every process it started, after the video's last frame", async () => {
    const test = await testBrowser({ viewport: { width: 640, height: 480 } });
    try {
      // A stopped process answers nothing: asked to close, it would never; killed, it goes.
      await hangAfterAPage(test);
      const closed = await test.browser.close();
      expect(closed.problems).toEqual([]);
      expect(closed.video?.path).toBe(test.videoPath);
      expect((await probeVideo(test.videoPath)).frames).toBe(closed.video?.frames);
      expect(test.processes.count()).toBe(0);
    } finally {
      await test.dispose();
    }
  }, 30_000);

  it("asks a Chromium in the user's own profile folder to close, and kills one that does not", async () => {
    const folder = await mkdtemp(join(tmpdir(), "skillrun-profile-folder-"));
    const test = await testBrowser({
      viewport: { width: 640, height: 480 },
      profileFolder: { path: folder, writable: true },
    });
    try {
      const pid = await hangAfterAPage(test);
      const started = Date.now();
      const closed = await test.browser.close();
      expect(Date.now() - started).toBeGreaterThanOrEqual(4900);
      expect(closed.problems).toEqual([`Chromium did not close within 5s; killed it (pid ${pid})`]);
      expect(closed.video?.path).toBe(test.videoPath);
      expect(test.processes.count()).toBe(0);
    } finally {
      await test.dispose();
      await rm(folder, { recursive: true, force: true });
    }
  }, 30_000);
});
