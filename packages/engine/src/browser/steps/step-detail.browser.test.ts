import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSkillDefinition } from "../../definition/parse.js";
import { createRunFiles } from "../../files/run-files.js";
import { LOCAL_TEST_NETWORK } from "../../network/test-support/local-network.js";
import { executeSkill } from "../../run/execute-skill.js";
import { DETAIL_MAX_CHARS } from "../../run/step-detail.js";
import type { EngineEvent } from "../../run/types.js";
import { type FixtureSite, startFixtureSite } from "../test-support/fixture-site.js";
import { runSkill } from "../test-support/run-skill.js";
import { testBrowser } from "../test-support/test-browser.js";

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(() => site.close());

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const PASSWORD = "hunter2-correct-horse";

function ended(events: EngineEvent[]) {
  return events.filter(
    (event): event is Extract<EngineEvent, { type: "step_finished" | "step_failed" }> =>
      event.type === "step_finished" || event.type === "step_failed",
  );
}

describe("step detail of browser steps", () => {
  it("names the selector, the address and status, the file and size, and masks what was typed", async () => {
    const test = await testBrowser({ video: false });
    try {
      const events: EngineEvent[] = [];
      const result = await executeSkill({
        definition: parseSkillDefinition(
          `id: s
name: S
inputs:
  - { json_key: base, data_type: string }
  - { json_key: password, data_type: string, secret: true }
steps:
  - goto: "{{ inputs.base }}/form"
  - fill: { selector: "#name", value: "{{ inputs.password }}" }
  - fill: { selector: "#pin", value: "pin-typed-in-clear-1234" }
  - select: { selector: "#size", value: Medium }
  - extract: { selector: "a.item", attribute: href, all: true }
  - exists: { selector: "#nothing-here" }
  - press: { key: Tab }
  - screenshot:
`,
          "s.yaml",
        ),
        inputs: { base: site.base, password: PASSWORD },
        run: { id: "run_1", skill_id: "s" },
        signal: new AbortController().signal,
        onEvent: (event) => events.push(event),
        browser: test.browser.access,
        files: test.files,
        network: LOCAL_TEST_NETWORK,
      });
      expect(result.outcome).toBe("finished");
      const shot = test.files.list()[0];
      expect(ended(events).map((event) => event.detail)).toEqual([
        `${site.base}/form → 200`,
        '"#name" ← "***"',
        '"#pin" ← *** (a password field)',
        '"#size" → ["m"]',
        '"a.item" → ["/one","/two","/three"]',
        '"#nothing-here" → false',
        "Tab",
        expect.stringMatching(new RegExp(`^${shot?.name} \\(\\d+(\\.\\d)? KB\\)$`)),
      ]);
      expect(JSON.stringify(events)).not.toContain(PASSWORD);
      // Not a secret, but typed into a password field: not shown either.
      expect(JSON.stringify(events)).not.toContain("pin-typed-in-clear-1234");
    } finally {
      await test.dispose();
    }
  }, 30_000);

  it("a click on a missing selector fails the run, keeps failed-<step>.png and its event names it", async () => {
    const test = await testBrowser({ video: false, viewport: { width: 640, height: 480 } });
    try {
      const result = await runSkill(
        `
- goto: "{{ inputs.base }}/form"
- timeout: 1s
  click: { selector: "#missing-button" }
`,
        { base: site.base, browser: test.browser.access, files: test.files },
      );
      expect(result.outcome === "failed" && result.error.step).toBe("step 2 (click)");
      const failed = result.events.find((event) => event.type === "step_failed");
      expect(failed).toMatchObject({
        file: "failed-step-2-click.png",
        detail: '"#missing-button"',
        will_retry: false,
      });
      const png = await readFile(join(test.filesDir, "failed-step-2-click.png"));
      expect(png.subarray(0, 8)).toEqual(PNG_SIGNATURE);
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([640, 480]);
      expect(test.files.list()).toEqual([
        expect.objectContaining({ name: "failed-step-2-click.png", bytes: png.length }),
      ]);
    } finally {
      await test.dispose();
    }
  }, 30_000);

  it("bounds a 10 KB selector's detail, and screenshots only the last of a step's attempts", async () => {
    const test = await testBrowser({ video: false });
    try {
      const selector = `#${"x".repeat(10 * 1024)}`;
      const result = await runSkill(
        `
- goto: "{{ inputs.base }}/form"
- id: press_it
  timeout: 500ms
  retry: { attempts: 2 }
  click: { selector: "${selector}" }
`,
        { base: site.base, browser: test.browser.access, files: test.files },
      );
      expect(result.outcome).toBe("failed");
      const failures = result.events.filter((event) => event.type === "step_failed");
      expect(failures).toHaveLength(2);
      for (const failure of failures) {
        expect(failure.detail?.length).toBe(DETAIL_MAX_CHARS);
        expect(failure.detail).toMatch(/^"#x+…$/);
      }
      expect(failures.map((failure) => failure.file)).toEqual([undefined, "failed-press_it.png"]);
      expect(test.files.list().map((file) => file.name)).toEqual(["failed-press_it.png"]);
    } finally {
      await test.dispose();
    }
  }, 30_000);

  it("a screenshot the run's files have no room for is not kept, and the run fails as it would", async () => {
    const test = await testBrowser({ video: false });
    try {
      const files = createRunFiles({ dir: test.filesDir, maxTotalBytes: 100 });
      const result = await runSkill(
        `
- goto: "{{ inputs.base }}/form"
- timeout: 1s
  wait_for: { selector: "#never" }
`,
        { base: site.base, browser: test.browser.access, files },
      );
      expect(result.outcome === "failed" && result.error).toEqual({
        step: "step 2 (wait_for)",
        // Its wording under load is browser-steps' concern; the step and selector are this test's.
        message: expect.stringContaining('"#never"'),
      });
      const failed = result.events.find((event) => event.type === "step_failed");
      expect(failed).not.toHaveProperty("file");
      expect(result.events).toContainEqual(
        expect.objectContaining({
          type: "log",
          level: "warn",
          message: expect.stringMatching(
            /^no screenshot of the failed step was kept: failed-step-2-wait_for\.png would take the run's files over their limit/,
          ),
        }),
      );
      expect(files.list()).toEqual([]);
      await expect(stat(join(test.filesDir, "failed-step-2-wait_for.png"))).rejects.toThrow();
    } finally {
      await test.dispose();
    }
  }, 30_000);
});
