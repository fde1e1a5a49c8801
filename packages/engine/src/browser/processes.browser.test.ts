import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isTaggedBrowser, killBrowserProcesses, listProcesses } from "./processes.js";
import { type FixtureSite, startFixtureSite } from "./test-support/fixture-site.js";
import { testBrowserOnAPage } from "./test-support/test-browser.js";

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(() => site.close());

describe("killBrowserProcesses", () => {
  it("kills every process of a browser whose owner can no longer close it, renderers included", async () => {
    const test = await testBrowserOnAPage(site.base);
    try {
      // The browser, its zygotes and at least one renderer.
      expect(test.processes.count()).toBeGreaterThan(2);
      expect(killBrowserProcesses(test.tag)).toBeGreaterThan(2);
      expect(await test.processes.gone(3000)).toBe(0);
    } finally {
      await test.dispose();
    }
  }, 30_000);

  it("counts a killed browser's processes out at once, not once the kernel has freed them", async () => {
    const test = await testBrowserOnAPage(site.base);
    try {
      const sids = new Set(
        listProcesses()
          .filter((p) => isTaggedBrowser(p, test.tag))
          .map((p) => p.sid),
      );
      expect(listProcesses().filter((p) => sids.has(p.sid)).length).toBeGreaterThan(2);
      expect(killBrowserProcesses(test.tag)).toBeGreaterThan(2);
      // No wait: each has SIGKILL pending or is exiting, and runs none of its code again. (Its
      // crash reporters, in sessions of their own, end by themselves once the browser has.)
      expect(listProcesses().filter((p) => sids.has(p.sid))).toEqual([]);
    } finally {
      await test.dispose();
    }
  }, 30_000);

  it("kills nothing for a tag no browser carries, least of all this process", () => {
    expect(killBrowserProcesses("no-such-tag")).toBe(0);
  });
});
