import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureSite, startFixtureSite } from "../test-support/fixture-site.js";
import { runSkill } from "../test-support/run-skill.js";
import { testBrowser } from "../test-support/test-browser.js";

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(() => site.close());

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe("browser steps", () => {
  it("fill, select, click, wait_for, extract, press, screenshot and assert_text drive a page", async () => {
    const test = await testBrowser({ viewport: { width: 800, height: 600 } });
    try {
      const result = await runSkill(
        `
- goto: "{{ inputs.base }}/form"
- fill: { selector: "#name", value: "{{ 'Wid' & 'get' }}" }
- fill: { selector: "#quantity", value: 3 }
- id: size
  select: { selector: "#size", value: Medium }
- click: { selector: "#submit" }
- wait_for: { selector: "#result" }
- extract: { selector: "#result", save_as: order }
- extract: { selector: "a.item", attribute: href, save_as: first_link }
- extract: { selector: "a.item", attribute: href, all: true, save_as: links }
- extract: { selector: "#links a", all: true, save_as: names }
- wait_for: { selector: "#search-result", state: hidden }
- fill: { selector: "#search", value: shoes }
- press: { selector: "#search", key: Enter }
- extract: { selector: "#search-result", save_as: searched }
- fill: { selector: "#search", value: boots }
- press: { key: Enter }
- extract: { selector: "#search-result", save_as: searched_again }
- id: size_again
  select: { selector: "#size", value: l }
- set: { picked: "{{ [steps.size, steps.size_again] }}" }
- id: shot
  screenshot: { save_as: picture }
- id: reviewed
  assert_text: { selector: "#status", text: "review" }
- id: approved
  timeout: 1s
  assert_text: { selector: "#status", text: "Approved" }
`,
        { base: site.base, browser: test.browser.access, files: test.files },
      );
      expect(result.outcome).toBe("failed");
      expect(result.data).toMatchObject({
        order: "Ordered 3 × Widget (m)",
        first_link: "/one",
        links: ["/one", "/two", "/three"],
        names: ["One", "Two", "Three"],
        searched: "Searched for shoes",
        searched_again: "Searched for boots",
        // JSONata flattens the two lists of selected values into one.
        picked: ["m", "l"],
        picture: {
          file: "screenshot-1-shot.png",
          width: 800,
          height: 600,
          content_type: "image/png",
        },
      });
      expect(result.outcome === "failed" && result.error).toEqual({
        step: "approved",
        message: expect.stringMatching(
          /^"#status" does not contain "Approved" \(waited [1-9]00ms\); its text is "Pending review"$/,
        ),
      });
      const steps = result.events.filter((event) => event.type === "step_finished");
      expect(steps).toHaveLength(21);

      const png = await readFile(join(test.filesDir, "screenshot-1-shot.png"));
      expect(png.subarray(0, 8)).toEqual(PNG_SIGNATURE);
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([800, 600]);
      const sha256 = createHash("sha256").update(png).digest("hex");
      expect(result.data.picture).toMatchObject({ bytes: png.length, sha256 });
      // The failed assert_text left the page as it saw it.
      expect(test.files.list().map((file) => file.name)).toEqual([
        "screenshot-1-shot.png",
        "failed-approved.png",
      ]);
    } finally {
      await test.dispose();
    }
  }, 60_000);

  it("a selector that matches nothing fails the run naming the step and the selector", async () => {
    const test = await testBrowser();
    try {
      const result = await runSkill(
        `
- goto: "{{ inputs.base }}/form"
- id: submit
  timeout: 2s
  click: { selector: "#missing-button" }
`,
        { base: site.base, browser: test.browser.access },
      );
      expect(result.outcome === "failed" && result.error).toEqual({
        step: "submit",
        // 1.8 s at most: time spent getting the page counts against the step's 2 s.
        message: expect.stringMatching(
          /^no element matches "#missing-button" \(waited 1\.[0-8]s\)$/,
        ),
      });
      // The same page, as a second run would find it: an element that never becomes ready.
      const disabled = await runSkill(
        `
- id: later
  timeout: 1s
  click: { selector: "#later" }
`,
        { base: site.base, browser: test.browser.access },
      );
      expect(disabled.outcome === "failed" && disabled.error.message).toBe(
        'could not click "#later" within 900ms (element is not enabled)',
      );
      const closed = await test.browser.close();
      expect(closed.video?.path).toBe(test.videoPath);
      expect(closed.problems).toEqual([]);
      expect(test.processes.count()).toBe(0);
    } finally {
      await test.dispose();
    }
  }, 30_000);

  it("a step's own timeout names the selector even when the page is too busy to say why", async () => {
    const test = await testBrowser({ video: false });
    try {
      const result = await runSkill(
        `
- goto: "{{ inputs.base }}/busy"
- id: go
  timeout: 2s
  click: { selector: "#go" }
`,
        { base: site.base, browser: test.browser.access },
      );
      expect(result.outcome === "failed" && result.error).toEqual({
        step: "go",
        message: 'could not click "#go" within 2s',
      });
    } finally {
      await test.dispose();
    }
  }, 30_000);

  it("assert_text reports the mismatch it saw when a later read of the element runs out of time", async () => {
    const test = await testBrowser({ video: false });
    try {
      const result = await runSkill(
        `
- goto: "{{ inputs.base }}/vanishing"
- id: approved
  timeout: 4s
  assert_text: { selector: "#status", text: "Approved" }
`,
        { base: site.base, browser: test.browser.access },
      );
      expect(result.outcome === "failed" && result.error).toEqual({
        step: "approved",
        // 3.6 s at most: time spent getting the page counts against the step's 4 s.
        message: expect.stringMatching(
          /^"#status" does not contain "Approved" \(waited 3\.[0-6]s\); its text is "Pending review"$/,
        ),
      });
    } finally {
      await test.dispose();
    }
  }, 30_000);

  it("a page's address must be http or https, checked before Chromium starts", async () => {
    const test = await testBrowser();
    try {
      const result = await runSkill(`- goto: "file:///etc/passwd"\n`, {
        base: site.base,
        browser: test.browser.access,
      });
      expect(result.outcome === "failed" && result.error.message).toBe(
        "goto file:///etc/passwd: not an http:// or https:// address",
      );
      expect(test.processes.count()).toBe(0);
      expect(await test.browser.close()).toEqual({ video: null, problems: [] });
    } finally {
      await test.dispose();
    }
  });

  it("goto fails on a status of 400 or more unless expect_status allows it, and gives {url, status}", async () => {
    const test = await testBrowser();
    try {
      const missing = await runSkill(`- id: open\n  goto: "{{ inputs.base }}/no-such-page"\n`, {
        base: site.base,
        browser: test.browser.access,
      });
      expect(missing.outcome === "failed" && missing.error).toEqual({
        step: "open",
        message: `goto ${site.base}/no-such-page: HTTP 404 (expected a status below 400); add expect_status: [404] (or any) to the step when this page is what it wants`,
      });
      const allowed = await runSkill(
        `
- id: listed
  goto: { url: "{{ inputs.base }}/no-such-page", expect_status: [200, 404] }
- id: any
  goto: { url: "{{ inputs.base }}/no-such-page", expect_status: any }
- id: plain
  goto: "{{ inputs.base }}/form"
- set: { results: "{{ [steps.listed, steps.any, steps.plain] }}" }
`,
        { base: site.base, browser: test.browser.access },
      );
      expect(allowed.outcome === "finished" && allowed.data.results).toEqual([
        { url: `${site.base}/no-such-page`, status: 404 },
        { url: `${site.base}/no-such-page`, status: 404 },
        { url: `${site.base}/form`, status: 200 },
      ]);
      // A list names exactly what is accepted: a 200 is refused when only 404 is expected.
      const only = await runSkill(
        `- goto: { url: "{{ inputs.base }}/form", expect_status: 404 }\n`,
        {
          base: site.base,
          browser: test.browser.access,
        },
      );
      expect(only.outcome === "failed" && only.error.message).toMatch(
        /^goto http:\S+\/form: HTTP 200 \(expected 404\);/,
      );
    } finally {
      await test.dispose();
    }
  }, 30_000);

  it("a screenshot without run files fails before Chromium starts", async () => {
    const test = await testBrowser();
    try {
      const result = await runSkill("- screenshot:\n", {
        base: site.base,
        browser: test.browser.access,
      });
      expect(result.outcome === "failed" && result.error).toEqual({
        step: "step 1 (screenshot)",
        message: 'files are not kept by this runner (step kind "screenshot")',
      });
      expect(test.processes.count()).toBe(0);
    } finally {
      await test.dispose();
    }
  });
});
