import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserMemoryExceeded } from "./memory-watchdog.js";
import { statFields } from "./processes.js";
import { sessionMemory, sessionMeter } from "./session-memory.js";
import { type FixtureSite, startFixtureSite } from "./test-support/fixture-site.js";
import { runSkill } from "./test-support/run-skill.js";
import { testBrowser, testBrowserOnAPage } from "./test-support/test-browser.js";

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(() => site.close());

const MB = 1024 * 1024;
// The page takes 1 GB on top of what Chromium needs for itself (300–400 MB with a 1280×720 page).
const HOG = `- goto: "{{ inputs.base }}/hog"\n- wait_for: { selector: "#done" }\n  timeout: 30s\n`;
// The same, holding the memory a while for the measurements to see it.
const HOG_HOLDING = `${HOG}- wait: 1500ms\n`;

describe("the browser's memory watchdog", () => {
  it("lets a browser within its limit be, while it measures it", async () => {
    const test = await testBrowser({ video: false, memoryLimitBytes: 4096 * MB });
    let most = 0;
    let measuring = true;
    // One measurement after another, as the watchdog takes them, of each browser process found
    // (Chromium forks short-lived helpers that carry its command line).
    const sampler = (async () => {
      while (measuring) {
        for (const pid of test.processes.browsers()) {
          most = Math.max(most, (await sessionMemory(pid)).bytes);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    try {
      const result = await runSkill(HOG_HOLDING, {
        base: site.base,
        browser: test.browser.access,
      });
      expect(result.outcome, JSON.stringify(result)).toBe("finished");
      // What the next test's limit is measured against: the page really goes far past it.
      expect(most).toBeGreaterThan(1024 * MB);
      expect((await test.browser.close()).problems).toEqual([]);
    } finally {
      measuring = false;
      await sampler;
      await test.dispose();
    }
  }, 60_000);

  it("between two readings of a process's PSS, adds what its anonymous memory changed by", async () => {
    const test = await testBrowserOnAPage(site.base);
    try {
      const [browser] = test.processes.browsers();
      const meter = sessionMeter(Number(statFields(`/proc/${browser}/stat`)[3]));
      const first = await meter.measure();
      expect(first.estimated).toBe(false);
      // 8 MB more in the renderer: less than makes the meter read its PSS again.
      const page = await test.browser.access.page();
      await page.evaluate(() => {
        Object.assign(globalThis, { held: new Uint8Array(8 * 1024 * 1024).fill(1) });
      });
      const after = await meter.measure();
      const exact = await meter.measure({ exact: true });
      expect(after.estimated).toBe(true);
      expect(after.bytes).toBeGreaterThan(first.bytes + 6 * MB);
      expect(Math.abs(after.bytes - exact.bytes)).toBeLessThan(4 * MB);
    } finally {
      await test.dispose();
    }
  }, 60_000);

  it("kills a browser past its limit, says how much it used, and leaves no process", async () => {
    const control = new AbortController();
    const verdicts: BrowserMemoryExceeded[] = [];
    const test = await testBrowser({
      memoryLimitBytes: 600 * MB,
      onMemoryExceeded: (error) => {
        verdicts.push(error);
        // As the worker does: the run stops with the verdict as its reason.
        control.abort(error);
      },
    });
    try {
      const started = Date.now();
      const result = await runSkill(HOG, {
        base: site.base,
        browser: test.browser.access,
        signal: control.signal,
      });
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(verdicts).toHaveLength(1);
      const [verdict] = verdicts;
      expect(verdict?.message).toMatch(
        /^the browser used (\d+ MB|\d+\.\d GB), over its limit of 600 MB$/,
      );
      expect(verdict?.usedBytes).toBeGreaterThan(600 * MB);
      expect(result.outcome === "aborted" && result.reason).toBe(verdict);
      expect(result.outcome === "aborted" && result.step?.label).toBe("step 2 (wait_for)");
      // Killed by the watchdog itself, before the run closed its browser; the kernel takes a
      // moment to free what they held.
      expect(await test.processes.gone(2000)).toBe(0);
      // Any later browser step is refused with the same verdict.
      const after = await runSkill(`- goto: "{{ inputs.base }}/static"\n`, {
        base: site.base,
        browser: test.browser.access,
      });
      expect(after.outcome === "failed" && after.error.message).toBe(verdict?.message);
      await test.browser.close();
      expect(test.processes.count()).toBe(0);
    } finally {
      await test.dispose();
    }
  }, 60_000);
});
