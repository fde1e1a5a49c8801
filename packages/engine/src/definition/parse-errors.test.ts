import { describe, expect, it, vi } from "vitest";
import { SkillDefinitionError, type SkillDefinitionIssue } from "./errors.js";
import { parseSkillDefinition } from "./parse.js";

const KINDS =
  "set, let, log, wait, http, fail, repeat, for_each, call, ask, goto, click, fill, press, select, wait_for, extract, exists, screenshot, assert_text, download, upload, read_file, hover, check, uncheck, scroll, evaluate, switch_tab, close_tab";

function issuesOf(text: string): SkillDefinitionIssue[] {
  try {
    parseSkillDefinition(text, "skill.yaml");
  } catch (error) {
    if (error instanceof SkillDefinitionError) return [...error.issues];
    throw error;
  }
  throw new Error("expected a SkillDefinitionError");
}

function issue(line: number, column: number, path: string, message: string): SkillDefinitionIssue {
  return { file: "skill.yaml", line, column, path, message };
}

describe("parseSkillDefinition reports", () => {
  it("an unknown step kind once, at its key", () => {
    const text = `id: s
name: S
steps:
  - log: start
  - clik: { selector: "#go" }
`;
    expect(issuesOf(text)).toEqual([
      issue(
        5,
        5,
        "steps/1/clik",
        `unknown step kind "clik"; did you mean "click"? (expected one of: ${KINDS})`,
      ),
    ]);
  });

  it("a step kind or step option key near a known one with a suggestion, a far one without", () => {
    const text = `id: s
name: S
steps:
  - wait_fr: { selector: "#go" }
  - frobnicate: 1
  - click: { selector: "#go" }
    tiemout: 2s
`;
    expect(issuesOf(text)).toEqual([
      issue(
        4,
        5,
        "steps/0/wait_fr",
        `unknown step kind "wait_fr"; did you mean "wait_for"? (expected one of: ${KINDS})`,
      ),
      issue(
        5,
        5,
        "steps/1/frobnicate",
        `unknown step kind "frobnicate" (expected one of: ${KINDS})`,
      ),
      issue(
        7,
        5,
        "steps/2/tiemout",
        'unknown key "tiemout"; did you mean "timeout"? (a step holds one action plus: id, if, timeout, retry, optional, on_dialog)',
      ),
    ]);
  });

  it("a missing key at the map that lacks it", () => {
    const text = `id: s
name: S
inputs:
  - { data_type: string }
steps:
  - wait: 1s
`;
    expect(issuesOf(text)).toEqual([issue(4, 5, "inputs/0", 'missing required key "json_key"')]);
  });

  it("a missing top-level key at the top of the file", () => {
    expect(issuesOf("id: s\nname: S\n")).toEqual([
      issue(1, 1, "$", 'missing required key "steps"'),
    ]);
  });

  it("an unknown key at that key, naming the allowed ones", () => {
    const text = `id: s
name: S
steps:
  - wait: 1s
retries: 3
`;
    expect(issuesOf(text)).toEqual([
      issue(
        5,
        1,
        "retries",
        'unknown key "retries" (allowed: id, name, description, inputs, timeout, steps, on_dialog, output, on_worker_loss, on_resume, concurrency, concurrency_key, profile)',
      ),
    ]);
  });

  it("a wrong type at the value", () => {
    const text = `id: s
name: S
steps:
  - http:
      url: https://example.test/
      expect_status: "200"
`;
    expect(issuesOf(text)).toEqual([
      issue(6, 22, "steps/0/http/expect_status", 'expected a whole number or a list, got "200"'),
    ]);
  });

  it("a bad duration", () => {
    const text = `id: s
name: S
steps:
  - wait: 2x
`;
    expect(issuesOf(text)).toEqual([
      issue(4, 11, "steps/0/wait", '"2x" is not a duration (expected e.g. 500ms, 2s, 2m)'),
    ]);
  });

  it("a number where a duration belongs", () => {
    const text = "id: s\nname: S\ntimeout: 30\nsteps:\n  - wait: 1s\n";
    expect(issuesOf(text)).toEqual([
      issue(3, 10, "timeout", "expected a duration such as 500ms, 2s or 2m, got 30"),
    ]);
  });

  it("a duplicate input json_key at the repeat", () => {
    const text = `id: s
name: S
inputs:
  - { json_key: url, data_type: string }
  - { json_key: url, data_type: string }
steps:
  - wait: 1s
`;
    expect(issuesOf(text)).toEqual([
      issue(5, 17, "inputs/1/json_key", 'duplicate input json_key "url"'),
    ]);
  });

  it("an explicit input id that clashes with one implied by a json_key", () => {
    const text = `id: s
name: S
inputs:
  - { json_key: url, data_type: string }
  - { id: input_url, json_key: link, data_type: string }
steps:
  - wait: 1s
`;
    expect(issuesOf(text)).toEqual([issue(5, 11, "inputs/1/id", 'duplicate input id "input_url"')]);
  });

  it("a duplicate step id at the repeat", () => {
    const text = `id: s
name: S
steps:
  - id: notify
    log: one
  - id: notify
    log: two
`;
    expect(issuesOf(text)).toEqual([issue(6, 9, "steps/1/id", 'duplicate step id "notify"')]);
  });

  it("a default that does not match its data_type", () => {
    const text = `id: s
name: S
inputs:
  - { json_key: limit, data_type: number, required: false, default: "100" }
steps:
  - wait: 1s
`;
    expect(issuesOf(text)).toEqual([
      issue(
        4,
        69,
        "inputs/0/default",
        'default does not match data_type "number": expected a number, got "100"',
      ),
    ]);
  });

  it("an unknown data_type, listing the known ones", () => {
    const text = `id: s
name: S
inputs:
  - { json_key: q, data_type: text }
steps:
  - wait: 1s
`;
    expect(issuesOf(text)).toEqual([
      issue(
        4,
        31,
        "inputs/0/data_type",
        '"text" is not one of: string, number, boolean, array, object, file, tab',
      ),
    ]);
  });

  it("a step with two actions, at the second", () => {
    const text = `id: s
name: S
steps:
  - goto: https://example.test/
    click: { selector: a }
`;
    expect(issuesOf(text)).toEqual([
      issue(
        5,
        5,
        "steps/0/click",
        'more than one action in a step ("goto" and "click"); give each its own step',
      ),
    ]);
  });

  it("a step with no action", () => {
    const text = "id: s\nname: S\nsteps:\n  - id: lonely\n";
    expect(issuesOf(text)).toEqual([
      issue(4, 5, "steps/0", `missing action key (expected one of: ${KINDS})`),
    ]);
  });

  it("json and body together in one http step", () => {
    const text = `id: s
name: S
steps:
  - http: { method: POST, url: https://example.test/, json: {}, body: "x" }
`;
    expect(issuesOf(text)).toEqual([
      issue(4, 65, "steps/0/http/body", '"json" and "body" cannot be used together'),
    ]);
  });

  it("a download that says neither or both of click and url, or a frame without a click", () => {
    const text = `id: s
name: S
steps:
  - download: {}
  - download: { click: a, url: "https://example.test/x" }
  - download: { url: "https://example.test/x", frame: iframe }
`;
    expect(issuesOf(text)).toEqual([
      issue(4, 15, "steps/0/download", 'needs "click" or "url"'),
      issue(5, 27, "steps/1/download/url", '"click" and "url" cannot be used together'),
      issue(6, 48, "steps/2/download/frame", '"frame" goes with "click", which is missing'),
    ]);
  });

  it("an empty value at its key", () => {
    const text = "id: s\nname: S\nsteps:\n  - fill:\n";
    expect(issuesOf(text)).toEqual([issue(4, 5, "steps/0/fill", "expected a map, got nothing")]);
  });

  it("a bad step option beside a valid action", () => {
    const text = `id: s
name: S
steps:
  - log: hi
    retry: { attempts: 11 }
`;
    expect(issuesOf(text)).toEqual([
      issue(5, 24, "steps/0/retry/attempts", "must be at most 10, got 11"),
    ]);
  });

  it("a YAML syntax error at its line", () => {
    const text = "id: s\nname: S\nname: T\nsteps:\n  - wait: 1s\n";
    expect(issuesOf(text)).toEqual([
      issue(3, 1, "$", "YAML syntax error: map keys must be unique"),
    ]);
  });

  it("a file that is not a map", () => {
    expect(issuesOf("")).toEqual([
      issue(1, 1, "$", "expected a skill definition (a map with id, name and steps), got nothing"),
    ]);
  });

  it("every issue in source order, one per line of the message", () => {
    const text = `id: s
name: S
steps:
  - wait: soon
  - clik: a
timeout: 2x
`;
    expect(() => parseSkillDefinition(text, "skills/s.yaml")).toThrow(
      [
        'skills/s.yaml:4:11: steps/0/wait: "soon" is not a duration (expected e.g. 500ms, 2s, 2m)',
        `skills/s.yaml:5:5: steps/1/clik: unknown step kind "clik"; did you mean "click"? (expected one of: ${KINDS})`,
        'skills/s.yaml:6:10: timeout: "2x" is not a duration (expected e.g. 500ms, 2s, 2m)',
      ].join("\n"),
    );
  });

  it("a tab switch_tab cannot name, a dialog answer other than accept or dismiss, a frame without a selector", () => {
    const text = `id: s
name: S
on_dialog: ok
steps:
  - switch_tab: first
  - on_dialog: cancel
    close_tab:
  - press: { key: Enter, frame: "#pay" }
`;
    expect(issuesOf(text)).toEqual([
      issue(3, 12, "on_dialog", '"ok" is not one of: accept, dismiss'),
      issue(
        5,
        17,
        "steps/0/switch_tab",
        '"first" is not a tab (write last, an index from 0, or one {{ }} expression)',
      ),
      issue(6, 16, "steps/1/on_dialog", '"cancel" is not one of: accept, dismiss'),
      issue(8, 26, "steps/2/press/frame", '"frame" goes with "selector", which is missing'),
    ]);
  });
});

describe("parseSkillDefinition, given an unquoted template", () => {
  it("reports where it is and says to quote it, printing nothing", () => {
    const emitWarning = vi.spyOn(process, "emitWarning");
    const consoleWarn = vi.spyOn(console, "warn");
    const consoleError = vi.spyOn(console, "error");
    const consoleLog = vi.spyOn(console, "log");
    try {
      const text = `id: s
name: S
inputs:
  - { json_key: x, data_type: string }
steps:
  - log: {{ inputs.x }}
`;
      expect(issuesOf(text)).toEqual([
        issue(
          6,
          10,
          "$",
          'a map or list cannot be a key: a value that starts with a template must be quoted, as in `log: "{{ inputs.x }}"` (unquoted, YAML reads `{{ … }}` as a map inside a map)',
        ),
      ]);
      for (const spy of [emitWarning, consoleWarn, consoleError, consoleLog]) {
        expect(spy).not.toHaveBeenCalled();
      }
    } finally {
      vi.restoreAllMocks();
    }
  });
});
