import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EngineEvent } from "../../run/types.js";
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

const run = (steps: string, skillLines = "") =>
  runSkill(steps, { base: site.base, browser: test.browser.access, skillLines });

/** The dialog lines of the log, each with the label of the step it was logged against. */
const dialogLogs = (events: EngineEvent[]) =>
  events.flatMap((event) =>
    event.type === "log" && event.message.includes(" dialog")
      ? [{ step: event.step.label, level: event.level, message: event.message }]
      : [],
  );

describe("dialogs", { timeout: 30_000 }, () => {
  it("are accepted by default and logged with their text: confirm, prompt and alert", async () => {
    // Each click would wait on its dialog for good if nobody answered it.
    const result = await run(`
- goto: "{{ inputs.base }}/dialogs"
- id: archive
  timeout: 5s
  click: { selector: "#archive" }
- extract: { selector: "#status", save_as: after_confirm }
- id: name
  timeout: 5s
  click: { selector: "#name" }
- extract: { selector: "#status", save_as: after_prompt }
- id: notice
  timeout: 5s
  click: { selector: "#notice" }
- extract: { selector: "#status", save_as: after_alert }
`);
    expect(result.outcome).toBe("finished");
    expect(result.data).toEqual({
      after_confirm: "Archived",
      after_prompt: "Hello Ada",
      after_alert: "Noticed",
    });
    expect(dialogLogs(result.events)).toEqual([
      { step: "archive", level: "info", message: 'confirm dialog "Archive invoice 7?" accepted' },
      { step: "name", level: "info", message: 'prompt dialog "Your name?" accepted with "Ada"' },
      { step: "notice", level: "info", message: 'alert dialog "Saved" accepted' },
    ]);
  });

  it("are dismissed where a step says so, and as the skill says elsewhere", async () => {
    const result = await run(
      `
- goto: "{{ inputs.base }}/dialogs"
- id: keep
  on_dialog: dismiss
  click: { selector: "#archive" }
- extract: { selector: "#status", save_as: kept }
- id: archive
  on_dialog: accept
  click: { selector: "#archive" }
- extract: { selector: "#status", save_as: archived }
- id: name
  click: { selector: "#name" }
- extract: { selector: "#status", save_as: no_name }
`,
      "on_dialog: dismiss\n",
    );
    expect(result.outcome).toBe("finished");
    expect(result.data).toEqual({ kept: "Kept", archived: "Archived", no_name: "No name" });
    expect(dialogLogs(result.events).map((log) => `${log.step}: ${log.message}`)).toEqual([
      'keep: confirm dialog "Archive invoice 7?" dismissed',
      'archive: confirm dialog "Archive invoice 7?" accepted',
      'name: prompt dialog "Your name?" dismissed',
    ]);
  });

  it("a block's on_dialog holds for the steps inside it", async () => {
    const result = await run(`
- goto: "{{ inputs.base }}/dialogs"
- id: twice
  on_dialog: dismiss
  repeat:
    max: 2
    steps:
      - click: { selector: "#archive" }
- extract: { selector: "#status", save_as: status }
`);
    expect(result.outcome).toBe("finished");
    expect(result.data).toEqual({ status: "Kept" });
    expect(dialogLogs(result.events).map((log) => log.message)).toEqual([
      'confirm dialog "Archive invoice 7?" dismissed',
      'confirm dialog "Archive invoice 7?" dismissed',
    ]);
  });

  it("accepts leaving a page that asks before it is left", async () => {
    const result = await run(`
- goto: "{{ inputs.base }}/leave"
- click: { selector: "#edit" }
- id: away
  timeout: 10s
  goto: "{{ inputs.base }}/static"
- extract: { selector: "#title", save_as: title }
`);
    expect(result.outcome).toBe("finished");
    expect(result.data).toEqual({ title: "Nothing moves here" });
    expect(dialogLogs(result.events)).toEqual([
      { step: "away", level: "info", message: "beforeunload dialog accepted" },
    ]);
  });
});
