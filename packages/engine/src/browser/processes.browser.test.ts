import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killBrowserProcesses } from "./processes.js";
import { type FixtureSite, startFixtureSite } from "./test-support/fixture-site.js";
import { runSkill } from "./test-support/run-skill.js";
import { testBrowser } from "./test-support/test-browser.js";

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(() => site.close());

describe("killBrowserProcesses", () => {
  it("kills every process of a browser whose owner can no longer close it, renderers included", async () => {
    const test = await testBrowser({ video: false });
    try {
      const result = await runSkill('- goto: "{{ inputs.base }}/static"\n', {
        base: site.base,
        browser: test.browser.access,
      });
      expect(result.outcome).toBe("finished");
      // The browser, its zygotes and at least one renderer.
      expect(test.processes.count()).toBeGreaterThan(2);
      expect(killBrowserProcesses(test.tag)).toBeGreaterThan(2);
      expect(await test.processes.gone(3000)).toBe(0);
    } finally {
      await test.dispose();
    }
  }, 30_000);

  it("kills nothing for a tag no browser carries, least of all this process", () => {
    expect(killBrowserProcesses("no-such-tag")).toBe(0);
  });
});
