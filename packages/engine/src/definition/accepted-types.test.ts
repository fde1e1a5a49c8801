import { describe, expect, it } from "vitest";
import { isAcceptedType } from "./accepted-types.js";
import { SkillDefinitionError } from "./errors.js";
import { parseSkillDefinition } from "./parse.js";

describe("a file input's accept", () => {
  it("takes a type listed, or of a type/* listed, whatever its parameters and case", () => {
    expect(isAcceptedType(["text/csv"], "text/csv; charset=utf-8")).toBe(true);
    expect(isAcceptedType(["text/csv"], "Text/CSV")).toBe(true);
    expect(isAcceptedType(["image/*"], "image/png")).toBe(true);
    expect(isAcceptedType(["text/csv"], "text/html; charset=utf-8")).toBe(false);
    expect(isAcceptedType(["image/*"], "application/png")).toBe(false);
    expect(isAcceptedType(["text/csv"], "text/csvx")).toBe(false);
  });

  it("is kept in the definition when declared, and refused on an input that is not a file or malformed", () => {
    const skill = (inputs: string) => `id: s\nname: S\ninputs:\n${inputs}steps:\n  - log: hi\n`;
    const parsed = parseSkillDefinition(
      skill(
        "  - { json_key: f, data_type: file, accept: [text/csv, image/*] }\n  - { json_key: g, data_type: file }\n",
      ),
      "s.yaml",
    );
    expect(parsed.inputs.map((input) => input.accept)).toEqual([
      ["text/csv", "image/*"],
      undefined,
    ]);
    expect("accept" in (parsed.inputs[1] ?? {})).toBe(false);
    const messages = (text: string) => {
      try {
        parseSkillDefinition(text, "s.yaml");
      } catch (error) {
        if (error instanceof SkillDefinitionError)
          return error.issues.map((i) => `${i.path}: ${i.message}`);
      }
      return [];
    };
    expect(messages(skill("  - { json_key: f, data_type: string, accept: [text/csv] }\n"))).toEqual(
      ['inputs/0/accept: accept goes with data_type "file", not "string"'],
    );
    expect(messages(skill("  - { json_key: f, data_type: file, accept: [csv] }\n"))).toHaveLength(
      1,
    );
    expect(messages(skill("  - { json_key: f, data_type: file, accept: [] }\n"))).toHaveLength(1);
    expect(
      messages(skill("  - { json_key: f, data_type: file, accept: [Text/CSV] }\n")),
    ).toHaveLength(1);
    expect(
      messages(
        skill('  - { json_key: f, data_type: file, accept: ["text/csv; charset=utf-8"] }\n'),
      ),
    ).toHaveLength(1);
  });
});
