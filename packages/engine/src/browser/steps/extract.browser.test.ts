import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureSite, INVOICE_ROWS, startFixtureSite } from "../test-support/fixture-site.js";
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

/** Runs `steps` on the invoice page, collecting the process warnings emitted meanwhile. */
async function onInvoices(steps: string) {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  process.on("warning", onWarning);
  try {
    const result = await runSkill(`- goto: "{{ inputs.base }}/invoices"\n${steps}`, {
      base: site.base,
      browser: test.browser.access,
    });
    // Warnings are emitted on the next tick; this lets any still queued arrive.
    await new Promise((resolve) => setImmediate(resolve));
    return { ...result, warnings };
  } finally {
    process.off("warning", onWarning);
  }
}

describe("extract", () => {
  it("reads fields of every row with all, of the first without, null where a field is missing", async () => {
    const result = await onInvoices(`
- id: rows
  extract:
    selector: "table#invoices tbody tr"
    all: true
    fields: { number: "td.number", amount: { selector: "td.amount" }, link: { selector: "a", attribute: href } }
- id: first
  extract:
    selector: "table#invoices tbody tr"
    fields: { number: td.number, missing: td.nothing, label: a }
- id: links
  extract: { selector: "table#invoices a", attribute: href, all: true }
- set: { rows: "{{ steps.rows }}", first: "{{ steps.first }}", links: "{{ steps.links }}" }
`);
    expect(result.outcome).toBe("finished");
    const rows = result.data.rows as unknown[];
    expect(rows).toHaveLength(INVOICE_ROWS);
    expect(rows.slice(0, 3)).toEqual([
      { number: "INV-1", amount: "10.00", link: "/invoice/1" },
      { number: "INV-2", amount: "20.00", link: "/invoice/2" },
      { number: "INV-3", amount: "30.00", link: null },
    ]);
    expect(rows.at(-1)).toEqual({ number: "INV-60", amount: "600.00", link: null });
    expect(result.data.first).toEqual({ number: "INV-1", missing: null, label: "open" });
    expect(result.data.links).toHaveLength(INVOICE_ROWS - INVOICE_ROWS / 3);
    // Reading 60 matches adds no listener per match to the step's signal.
    expect(result.warnings.map((warning) => `${warning.name}: ${warning.message}`)).toEqual([]);
  }, 30_000);

  it("all on a selector matching nothing gives an empty list at once; save_as still saves", async () => {
    const result = await onInvoices(`
- id: none
  extract: { selector: "table#empty tbody tr", all: true, fields: { number: td.number } }
- extract: { selector: "table#empty td", all: true, save_as: cells }
`);
    expect(result.outcome).toBe("finished");
    expect(result.data).toMatchObject({ cells: [] });
    const none = result.events.find(
      (event) => event.type === "step_finished" && event.step.id === "none",
    );
    // Well under the 10 s an element may take to appear: nothing was waited for.
    expect(none?.type === "step_finished" && none.duration_ms).toBeLessThan(3000);
  }, 30_000);

  it("without all, a selector matching nothing waits for it and fails naming it", async () => {
    const result = await onInvoices(`
- id: missing
  timeout: 1s
  extract: { selector: "table#empty tr", fields: { number: td.number } }
`);
    expect(result.outcome === "failed" && result.error).toEqual({
      step: "missing",
      message: expect.stringMatching(/^no element matches "table#empty tr" \(waited [1-9]00ms\)$/),
    });
  }, 30_000);

  it("fields and attribute together are refused when the skill is read", async () => {
    await expect(
      onInvoices(`- extract: { selector: tr, attribute: href, fields: { a: td } }\n`),
    ).rejects.toThrow(/extract/);
  });
});
