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
  - click: { selector: a }
  - fill: { selector: input, value: 42 }
  - press: { key: Enter }
  - select: { selector: select, value: b }
  - wait_for: { selector: a, state: hidden }
  - extract: { selector: a, save_as: links, attribute: href, all: true }
  - screenshot:
  - assert_text: { selector: h1, text: Welcome }
  - fail: "no invoices for {{ inputs.month }}"
`;
    expect(validate(skill(steps)), JSON.stringify(validate.errors)).toBe(true);
    expect(STEP_KINDS).toHaveLength(14);
  });

  it("rejects an unknown step kind, two actions in a step, and json with body", () => {
    expect(validate(skill("  - clik: { selector: a }\n"))).toBe(false);
    expect(validate(skill("  - log: a\n    wait: 1s\n"))).toBe(false);
    expect(validate(skill('  - http: { url: u, json: {}, body: "" }\n'))).toBe(false);
  });
});
