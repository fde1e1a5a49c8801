import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureSite, LIST_PAGES, startFixtureSite } from "../test-support/fixture-site.js";
import { runSkill } from "../test-support/run-skill.js";
import { type TestBrowser, testBrowser } from "../test-support/test-browser.js";

let site: FixtureSite;
let test: TestBrowser;
beforeAll(async () => {
  site = await startFixtureSite();
  test = await testBrowser({ video: false });
});
afterAll(async () => {
  await test?.dispose();
  await site?.close();
});

const run = (steps: string) => runSkill(steps, { base: site.base, browser: test.browser.access });

describe("exists", () => {
  it("answers true or false at once, saving into data or vars", async () => {
    // The step's timeout is far below the 10 s an element wait takes: only an answer at once passes.
    const result = await run(`
- goto: "{{ inputs.base }}/list/1"
- id: next
  timeout: 1s
  exists: { selector: "a[rel=next]", save_as: has_next }
- id: missing
  timeout: 1s
  exists: { selector: "#nothing-here", save_as: vars.missing }
- set: { missing: "{{ vars.missing }}", results: "{{ [steps.next, steps.missing] }}" }
`);
    expect(result.outcome).toBe("finished");
    expect(result.data).toEqual({ has_next: true, missing: false, results: [true, false] });
  });

  it("names a selector it cannot read", async () => {
    const result = await run(`
- goto: "{{ inputs.base }}/list/1"
- exists: { selector: "a[[" }
`);
    expect(result).toMatchObject({ outcome: "failed", error: { step: "step 2 (exists)" } });
    if (result.outcome === "failed") expect(result.error.message).toContain('"a[["');
  });
});

describe("a paged table read with repeat, fields and exists", () => {
  it("walks every page, however many there are", async () => {
    const result = await run(`
- goto: "{{ inputs.base }}/list/1"
- let: { rows: [] }
- id: pages
  repeat:
    max: 10
    until: "{{ vars.next_exists = false }}"
    steps:
      - id: page
        extract:
          selector: "table#list tbody tr"
          all: true
          fields: { number: td.number, amount: td.amount }
      - let: { rows: "{{ $append(vars.rows, steps.page) }}" }
      - exists: { selector: "a[rel=next]", save_as: vars.next_exists }
      - if: vars.next_exists
        click: { selector: "a[rel=next]" }
- set: { rows: "{{ vars.rows }}", total: "{{ $sum(vars.rows.($number(amount))) }}" }
`);
    expect(result.outcome).toBe("finished");
    const rows = Array.from({ length: LIST_PAGES * 2 }, (_, i) => ({
      number: `N-${i + 1}`,
      amount: `${i + 1}.50`,
    }));
    expect(result.data).toEqual({
      rows,
      total: rows.reduce((sum, row) => sum + Number(row.amount), 0),
    });
    const rounds = result.events.filter(
      (event) => event.type === "step_finished" && event.step.label === "pages",
    );
    expect(rounds).toHaveLength(1);
    const pages = result.events.flatMap((event) =>
      event.type === "step_finished" && event.step.id === "page" ? [event.step.label] : [],
    );
    expect(pages).toEqual(Array.from({ length: LIST_PAGES }, (_, i) => `pages #${i + 1} › page`));
    const finished = result.events.at(-1);
    expect(finished?.type).toBe("run_finished");
  });
});
