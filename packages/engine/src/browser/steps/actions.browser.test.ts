import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureSite, startFixtureSite } from "../test-support/fixture-site.js";
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

/** The `error` of each optional step, by id, after a run that went on past them. */
async function errorsOf(steps: string, ids: string[]) {
  const result = await run(`${steps}
- set: { errors: "{{ [${ids.map((id) => `steps.${id}.error`).join(", ")}] }}" }
`);
  expect(result.outcome).toBe("finished");
  return result.data.errors;
}

describe("hover, check, uncheck and scroll", { timeout: 30_000 }, () => {
  it("hover shows what the page shows on hover", async () => {
    const result = await run(`
- goto: "{{ inputs.base }}/widgets"
- extract: { selector: "#tip", save_as: before }
- hover: { selector: "#help" }
- assert_text: { selector: "#tip", text: "Help is on its way" }
`);
    expect(result.outcome).toBe("finished");
    expect(result.data).toEqual({ before: "Hover for help" });
  });

  it("check ticks and uncheck clears, each only when needed, in a frame too", async () => {
    const result = await run(`
- goto: "{{ inputs.base }}/widgets"
- check: { selector: "#terms" }
- check: { selector: "#terms" }
- uncheck: { selector: "#news" }
- uncheck: { selector: "#news" }
- extract: { selector: "#choices", save_as: choices }
- goto: "{{ inputs.base }}/frames"
- fill: { selector: "#card", value: "4000", frame: "#checkout" }
- check: { selector: "#save", frame: "#checkout" }
- click: { selector: "#pay", frame: "#checkout" }
- extract: { selector: "#paid", frame: "#checkout", save_as: paid }
`);
    expect(result.outcome).toBe("finished");
    expect(result.data).toEqual({
      choices: "terms true, news false",
      paid: "Paid in eur with 4000 (saved)",
    });
  });

  it("scroll without a selector reaches the bottom, where lazy content loads; with one, the element", async () => {
    const result = await run(`
- goto: "{{ inputs.base }}/widgets"
- exists: { selector: ".loaded", save_as: loaded_at_first }
- scroll:
- wait_for: { selector: ".loaded" }
- goto: "{{ inputs.base }}/widgets"
- let:
    in_view: "(() => { const box = document.getElementById('far').getBoundingClientRect(); return box.top >= 0 && box.bottom <= innerHeight; })()"
- evaluate: { expression: "{{ vars.in_view }}", save_as: far_in_view_before }
- scroll: { selector: "#far" }
- evaluate: { expression: "{{ vars.in_view }}", save_as: far_in_view_after }
`);
    expect(result.outcome).toBe("finished");
    expect(result.data).toEqual({
      loaded_at_first: false,
      far_in_view_before: false,
      far_in_view_after: true,
    });
  });

  it("fail naming the element they could not act on", async () => {
    const errors = await errorsOf(
      `
- goto: "{{ inputs.base }}/widgets"
- id: not_a_box
  optional: true
  check: { selector: "#tip" }
- id: no_element
  optional: true
  timeout: 1s
  hover: { selector: "#nowhere" }
- id: no_iframe
  optional: true
  timeout: 1s
  scroll: { frame: "#nope" }`,
      ["not_a_box", "no_element", "no_iframe"],
    );
    expect(errors).toEqual([
      'could not check "#tip": Not a checkbox or radio button',
      expect.stringMatching(/^no element matches "#nowhere" \(waited [1-9]00ms\)$/),
      expect.stringMatching(/^no iframe matches "#nope" \(waited [1-9]00ms\)$/),
    ]);
  });
});

describe("evaluate", { timeout: 30_000 }, () => {
  it("gives the value of an expression run in the page, saved under save_as", async () => {
    const result = await run(`
- goto: "{{ inputs.base }}/frames"
- id: page
  evaluate:
    expression: "({ title: document.title, items: [1, 'two', null], nested: { ok: true, gone: undefined } })"
    save_as: page
- id: later
  evaluate: "new Promise((resolve) => setTimeout(() => resolve(6 * 7), 100))"
- id: nothing
  evaluate: "void 0"
- id: called
  evaluate: "(() => location.pathname)()"
- evaluate: { expression: "document.title", frame: "#checkout", save_as: vars.inside }
- set: { results: "{{ [steps.later, steps.nothing, steps.called, vars.inside] }}" }
`);
    expect(result.outcome).toBe("finished");
    expect(result.data).toEqual({
      page: { title: "Frames", items: [1, "two", null], nested: { ok: true } },
      results: [42, null, "/frames", "Payment"],
    });
  });

  it("fails clearly on what JSON cannot hold, a throw, a result too large and a wait too long", async () => {
    const errors = await errorsOf(
      `
- goto: "{{ inputs.base }}/frames"
- id: element
  optional: true
  evaluate: "document.body"
- id: date
  optional: true
  evaluate: "({ when: new Date(0) })"
- id: nan
  optional: true
  evaluate: "[1, 0 / 0]"
- id: loop
  optional: true
  evaluate: "(() => { const a = { list: [] }; a.list.push(a); return a; })()"
- id: function
  optional: true
  evaluate: "() => 1"
- id: thrown
  optional: true
  evaluate: "nope.at.all"
- id: large
  optional: true
  evaluate: "'x'.repeat(2 * 1024 * 1024)"
- id: slow
  optional: true
  timeout: 1s
  evaluate: "new Promise(() => {})"`,
      ["element", "date", "nan", "loop", "function", "thrown", "large", "slow"],
    );
    expect(errors).toEqual([
      "evaluate: the result is of type HTMLBodyElement, which JSON cannot hold",
      "evaluate: result.when is of type Date, which JSON cannot hold",
      "evaluate: result[1] is NaN, which JSON cannot hold",
      "evaluate: result.list[0] refers back to an object it is inside, which JSON cannot hold",
      "evaluate: the result is a function, which JSON cannot hold",
      "evaluate failed: ReferenceError: nope is not defined",
      "evaluate: the result is 2 MB as JSON, more than the run's data may hold (1 MB)",
      "evaluate: the expression did not finish within 900ms",
    ]);
  });
});
