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

describe("frame", { timeout: 30_000 }, () => {
  it("makes every element step act inside the iframe: a form filled and submitted", async () => {
    const result = await run(`
- goto: "{{ inputs.base }}/frames"
- let: { frame: "#checkout" }
- wait_for: { selector: "#card", frame: "iframe#checkout" }
- fill: { selector: "#card", value: 4242, frame: "{{ vars.frame }}" }
- select: { selector: "#currency", value: USD, frame: "#checkout" }
- id: has_save
  exists: { selector: "#save", frame: "#checkout" }
- id: has_save_outside
  exists: { selector: "#save" }
- click: { selector: "#save", frame: "#checkout" }
- press: { selector: "#card", key: Enter, frame: "#checkout" }
- assert_text: { selector: "#paid", text: "Paid in usd", frame: "#checkout" }
- extract: { selector: "#paid", frame: "#checkout", save_as: paid }
- extract: { selector: "#title", frame: "#checkout", save_as: inside }
- extract: { selector: "#title", save_as: outside }
- set: { found: "{{ [steps.has_save, steps.has_save_outside] }}" }
`);
    expect(result.outcome).toBe("finished");
    expect(result.data).toEqual({
      paid: "Paid in usd with 4242 (saved)",
      inside: "Pay here",
      outside: "Checkout",
      found: [true, false],
    });
  });

  it("names the frame when the iframe or the element in it is not there", async () => {
    const result = await run(`
- goto: "{{ inputs.base }}/frames"
- id: no_iframe
  optional: true
  timeout: 1s
  click: { selector: "#pay", frame: "#nope" }
- id: no_element
  optional: true
  timeout: 1s
  wait_for: { selector: "#nothing", frame: "#checkout" }
- id: not_there
  optional: true
  timeout: 1s
  assert_text: { selector: "#title", text: "Refunded", frame: "#checkout" }
- set:
    errors: "{{ [steps.no_iframe.error, steps.no_element.error, steps.not_there.error] }}"
`);
    expect(result.outcome).toBe("finished");
    expect(result.data).toEqual({
      errors: [
        expect.stringMatching(/^no iframe matches "#nope" \(waited [1-9]00ms\)$/),
        expect.stringMatching(
          /^no element matches "#nothing" in frame "#checkout" \(waited [1-9]00ms\)$/,
        ),
        expect.stringMatching(
          /^"#title" in frame "#checkout" does not contain "Refunded" \(waited [1-9]00ms\); its text is "Pay here"$/,
        ),
      ],
    });
  });
});
