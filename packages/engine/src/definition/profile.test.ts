import { describe, expect, it } from "vitest";
import { SkillDefinitionError } from "./errors.js";
import { parseSkillDefinition } from "./parse.js";
import { isProfileName, renderProfileName } from "./profile.js";

const INPUTS = `inputs:
  - { json_key: user, data_type: string }
  - { json_key: account, data_type: object }
  - { json_key: password, data_type: string, secret: true }
steps:
  - log: hi
`;

function parse(head: string) {
  return parseSkillDefinition(`id: s\nname: S\n${head}\n${INPUTS}`, "skill.yaml");
}

/** Each issue of a definition with `head`, as `line:column message`. */
function problemsOf(head: string): string[] {
  try {
    parse(head);
  } catch (error) {
    if (error instanceof SkillDefinitionError) {
      return error.issues.map((issue) => `${issue.line}:${issue.column} ${issue.message}`);
    }
    throw error;
  }
  return [];
}

describe("a skill's profile", () => {
  it("is kept with save filled in: never unless it says otherwise", () => {
    expect(parse("profile: { name: 'acme-{{ inputs.user }}' }").profile).toEqual({
      name: "acme-{{ inputs.user }}",
      save: "never",
    });
    expect(parse("profile: { name: acme, save: on_success }").profile).toEqual({
      name: "acme",
      save: "on_success",
    });
    expect(parse("profile: { name: acme, save: always }").profile?.save).toBe("always");
  });

  it("refuses an unknown save, an unknown key, and a profile without a name", () => {
    expect(problemsOf("profile: { name: acme, save: sometimes }")).toHaveLength(1);
    expect(problemsOf("profile: { name: acme, keep: 3 }")[0]).toMatch(/unknown key "keep"/);
    expect(problemsOf("profile: { save: always }")).toHaveLength(1);
    expect(problemsOf("profile: acme")).toHaveLength(1);
  });

  it("refuses a name of odd characters, or reading anything but a plain input", () => {
    expect(problemsOf("profile: { name: 'acme/{{ inputs.user }}' }")).toEqual([
      '3:18 profile name "acme/{{ inputs.user }}" holds "/": a profile\'s name is letters, digits and . _ @ + -, a letter or digit first, at most 128 characters, not list',
    ]);
    expect(problemsOf("profile: { name: 'a b' }")).toHaveLength(1);
    expect(problemsOf("profile: { name: list }")).toHaveLength(1);
    expect(problemsOf("profile: { name: '-acme' }")).toHaveLength(1);
    expect(problemsOf(`profile: { name: '${"a".repeat(129)}' }`)).toHaveLength(1);
    expect(problemsOf("profile: { name: 'acme-{{ $lowercase(inputs.user) }}' }")).toEqual([
      "3:27 profile name may only read inputs, as {{ inputs.site }}: {{ $lowercase(inputs.user) }} is not a path into the inputs",
    ]);
    expect(problemsOf("profile: { name: 'acme-{{ inputs.nope }}' }")).toEqual([
      "3:27 profile name reads inputs.nope, which the skill does not declare",
    ]);
    expect(problemsOf("profile: { name: 'acme-{{ inputs.password }}' }")).toEqual([
      "3:27 profile name reads the secret input password: a profile's name is stored in clear",
    ]);
    expect(problemsOf("profile: { name: 'acme-{{ inputs.user' }")).toHaveLength(1);
  });

  it("renders against a run's inputs; what it renders is checked apart", () => {
    const template = "acme-{{ inputs.user }}";
    expect(renderProfileName(template, { user: "ann@example.com" })).toBe("acme-ann@example.com");
    expect(isProfileName("acme-ann@example.com")).toBe(true);
    expect(isProfileName(renderProfileName(template, { user: "a/b" }))).toBe(false);
    expect(isProfileName(renderProfileName(template, { user: "x".repeat(124) }))).toBe(false);
    expect(isProfileName(renderProfileName("{{ inputs.user }}", { user: "list" }))).toBe(false);
    expect(isProfileName(renderProfileName("{{ inputs.user }}", {}))).toBe(false);
  });
});
