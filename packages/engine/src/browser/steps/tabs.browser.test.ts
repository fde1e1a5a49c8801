import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureSite, startFixtureSite } from "../test-support/fixture-site.js";
import { runSkill } from "../test-support/run-skill.js";
import { type TestBrowser, testBrowser } from "../test-support/test-browser.js";

let site: FixtureSite;
let test: TestBrowser;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(async () => {
  await site?.close();
});

/** Each test gets a browser of its own: tabs left open would change the next one's indexes. */
async function run(steps: string) {
  test = await testBrowser({ video: false });
  try {
    return await runSkill(steps, { base: site.base, browser: test.browser.access });
  } finally {
    await test.dispose();
  }
}

const failure = (result: Awaited<ReturnType<typeof run>>) =>
  result.outcome === "failed" ? result.error : undefined;

// Each test starts a browser of its own, which takes a while on a busy machine.
describe("tabs", { timeout: 30_000 }, () => {
  it("switch_tab last reaches the tab a link just opened, close_tab goes back", async () => {
    // Several rounds: the new tab is often not known yet when the click returns.
    const result = await run(`
- goto: "{{ inputs.base }}/opener"
- repeat:
    max: 5
    steps:
      - click: { selector: "#link" }
      - id: popup
        switch_tab: last
      - assert_text: { selector: "#title", text: Popup }
      - id: back
        close_tab:
      - assert_text: { selector: "#status", text: Waiting }
- set: { popup: "{{ steps.popup }}", back: "{{ steps.back }}" }
`);
    expect(result.outcome).toBe("finished");
    expect(result.data).toEqual({
      popup: { index: 1, tabs: 2, url: `${site.base}/popup` },
      back: { index: 0, tabs: 1, url: `${site.base}/opener` },
    });
  });

  it("switch_tab takes an index; a popup acts on its opener, which is current again once it closes", async () => {
    const result = await run(`
- goto: "{{ inputs.base }}/opener"
- click: { selector: "#window" }
- switch_tab: 1
- click: { selector: "#done" }
- switch_tab: 0
- assert_text: { selector: "#status", text: Done in the popup }
- switch_tab: "{{ 0 + 1 }}"
- close_tab:
- extract: { selector: "#status", save_as: status }
`);
    expect(result.outcome).toBe("finished");
    expect(result.data).toEqual({ status: "Done in the popup" });
  });

  it("a tab that does not open fails the switch clearly, once its wait is over", async () => {
    const result = await run(`
- goto: "{{ inputs.base }}/opener"
- id: missing
  timeout: 1s
  switch_tab: 2
`);
    expect(failure(result)).toEqual({
      step: "missing",
      message: "there is no tab 2: 1 tab is open (tab 0)",
    });
  });

  it("closing the run's last tab fails clearly, and the tab stays usable", async () => {
    const result = await run(`
- goto: "{{ inputs.base }}/opener"
- id: last
  optional: true
  close_tab:
- extract: { selector: "#status", save_as: status }
`);
    expect(result.outcome).toBe("finished");
    expect(result.data).toEqual({ status: "Waiting" });
    const warning = result.events.find((event) => event.type === "log" && event.level === "warn");
    expect(warning).toMatchObject({
      message:
        "optional step failed, the run goes on: the current tab is the only one open; a run's last tab cannot be closed",
    });
  });
});
