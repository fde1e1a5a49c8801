import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { STEP_KINDS } from "../steps/registry.js";
import { skillDefinitionSchema } from "./schema.js";

// For tools that read the schema alone (editors, other languages), without our step-by-step checks.
describe("skillDefinitionSchema on its own", () => {
  const validate = new Ajv2020({ strict: true, allowUnionTypes: true }).compile(
    skillDefinitionSchema,
  );
  const skill = (steps: string) => parse(`id: s\nname: S\nsteps:\n${steps}`) as unknown;

  it("accepts one step of every kind", () => {
    const steps = `
  - set: { a: 1 }
  - log: hi
  - wait: 500ms
  - http: { url: "https://example.test/", expect_status: [200, 204], save_as: r }
  - goto: { url: "https://example.test/" }
  - goto: { url: "https://example.test/gone", expect_status: [200, 404] }
  - goto: { url: "https://example.test/any", expect_status: any }
  - read_file: { file: "{{ steps.csv }}", as: csv, save_as: vars.rows, max_bytes: 1000, max_rows: 10 }
  - read_file: { file: report.json, as: json }
  - click: { selector: a }
  - fill: { selector: input, value: 42 }
  - press: { key: Enter }
  - select: { selector: select, value: b }
  - wait_for: { selector: a, state: hidden }
  - extract: { selector: a, save_as: links, attribute: href, all: true }
  - screenshot:
  - assert_text: { selector: h1, text: Welcome }
  - download: { click: "a#export", frame: "iframe#reports" }
  - download: { url: "https://example.test/report.pdf", save_as: report }
  - upload: { selector: "input[type=file]", file: "{{ data.report }}" }
  - http: { url: "https://example.test/r", cookies: browser, follow_redirects: false, save_to_file: r.csv }
  - fail: "no invoices for {{ inputs.month }}"
  - let: { rows: [] }
  - repeat:
      max: 3
      until: "{{ vars.done }}"
      steps:
        - for_each: { items: "{{ vars.rows }}", as: row, steps: [{ log: "{{ vars.row }}" }] }
        - exists: { selector: a, save_as: vars.done }
  - call: { skill: skill_login, inputs: { user: u } }
  - ask: { prompt: "Code?", schema: { type: object, required: [code], properties: { code: { type: string, minLength: 6 } } }, save_as: vars.code, timeout: 10m }
  - id: maybe
    optional: true
    on_dialog: dismiss
    click: { selector: "#banner" }
  - hover: { selector: "#menu", frame: "#app" }
  - check: { selector: "#terms" }
  - uncheck: { selector: "#news", frame: "#app" }
  - scroll:
  - scroll: { selector: "#more" }
  - evaluate: "document.title"
  - evaluate: { expression: "location.href", save_as: vars.url, frame: "#app" }
  - click: { selector: a, frame: "#app" }
  - switch_tab: last
  - switch_tab: 0
  - switch_tab: "{{ vars.tab }}"
  - close_tab:
on_dialog: accept
output:
  rows: "{{ vars.rows }}"
`;
    expect(validate(skill(steps)), JSON.stringify(validate.errors)).toBe(true);
    expect(STEP_KINDS).toHaveLength(30);
  });

  it("rejects an unknown step kind, two actions in a step, and json with body", () => {
    expect(validate(skill("  - clik: { selector: a }\n"))).toBe(false);
    expect(validate(skill("  - log: a\n    wait: 1s\n"))).toBe(false);
    expect(validate(skill('  - http: { url: u, json: {}, body: "" }\n'))).toBe(false);
    expect(validate(skill("  - switch_tab: first\n"))).toBe(false);
    expect(validate(skill("  - switch_tab: -1\n"))).toBe(false);
    expect(validate(skill("  - close_tab: 1\n"))).toBe(false);
    expect(validate(skill("  - goto: { url: u, expect_status: sometimes }\n"))).toBe(false);
    expect(validate(skill("  - goto: { url: u, expect_status: 99 }\n"))).toBe(false);
    expect(validate(skill("  - read_file: { file: a.csv, as: xml }\n"))).toBe(false);
    expect(validate(skill("  - read_file: { file: a.csv }\n"))).toBe(false);
    expect(validate(skill("  - read_file: { file: a.csv, as: csv, max_rows: 100001 }\n"))).toBe(
      false,
    );
    expect(validate(skill("  - press: { key: Enter, frame: f }\n"))).toBe(false);
    expect(validate(skill("  - hover: { frame: f }\n"))).toBe(false);
    expect(validate(skill("  - on_dialog: ignore\n    click: { selector: a }\n"))).toBe(false);
  });
});
