import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureSite, startFixtureSite } from "../test-support/fixture-site.js";
import { runSkill } from "../test-support/run-skill.js";
import { testBrowser } from "../test-support/test-browser.js";

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(() => site.close());

describe("read_file of a file a run downloaded", () => {
  it("reads a CSV clicked for in Chromium into rows, a BOM, CRLF and quoted commas handled", async () => {
    const test = await testBrowser({ video: false });
    try {
      const result = await runSkill(
        `
- goto: "{{ inputs.base }}/files"
- id: export
  download: { click: "a#customers" }
- id: rows
  read_file: { file: "{{ steps.export }}", as: csv, save_as: customers }
- read_file: { file: "{{ steps.export.file }}", as: lines, save_as: vars.lines }
- set:
    cities: "{{ steps.rows.city }}"
    line_count: "{{ $count(vars.lines) }}"
`,
        { base: site.base, browser: test.browser.access, files: test.files },
      );
      expect(result.outcome, JSON.stringify(result)).toBe("finished");
      expect(result.data).toEqual({
        customers: [
          { name: "Müller, Anna", city: "Zürich", note: 'said "hi"' },
          { name: "Bob", city: "Paris", note: "two\r\nlines" },
        ],
        cities: ["Zürich", "Paris"],
        // Lines are the file's lines, whatever CSV quoting says.
        line_count: 4,
      });
    } finally {
      await test.dispose();
    }
  }, 60_000);
});
