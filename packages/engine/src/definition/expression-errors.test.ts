import { describe, expect, it } from "vitest";
import { SkillDefinitionError, type SkillDefinitionIssue } from "./errors.js";
import { parseSkillDefinition } from "./parse.js";

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

describe("parseSkillDefinition checks expressions and reports", () => {
  it("a template JSONata cannot parse, at its string", () => {
    const text = `id: s
name: S
steps:
  - set:
      total: "{{ inputs.a + }}"
`;
    expect(issuesOf(text)).toEqual([
      issue(
        5,
        14,
        "steps/0/set/total",
        "invalid expression {{ inputs.a + }}: Unexpected end of expression",
      ),
    ]);
  });

  it("a call of a function that does not exist, suggesting the one meant", () => {
    const text = `id: s
name: S
inputs: [{ json_key: a, data_type: string }]
steps:
  - set:
      n: "{{ $lenght(inputs.a) }}"
      ok: "{{ not(inputs.a = 'x') }}"
      far: "{{ $frobnicate(inputs.a) }}"
  - if: "count(inputs.a) > 0"
    log: hi
  - set:
      mine: "{{ ($twice := function($v) { $v * 2 }; $twice(2)) }}"
      code: "{{ $totp(secrets.otp) }}"
      listed: "{{ $count([1]) }}"
`;
    expect(issuesOf(text)).toEqual([
      issue(
        6,
        10,
        "steps/0/set/n",
        'invalid expression {{ $lenght(inputs.a) }}: unknown function "$lenght"; did you mean "$length"?',
      ),
      issue(
        7,
        11,
        "steps/0/set/ok",
        `invalid expression {{ not(inputs.a = 'x') }}: "not" is not a function; did you mean "$not"?`,
      ),
      issue(
        8,
        12,
        "steps/0/set/far",
        'invalid expression {{ $frobnicate(inputs.a) }}: unknown function "$frobnicate"',
      ),
      issue(
        9,
        9,
        "steps/1/if",
        'invalid expression {{ count(inputs.a) > 0 }}: "count" is not a function; did you mean "$count"?',
      ),
    ]);
  });

  it("a broken template deep inside an http json body", () => {
    const text = `id: s
name: S
steps:
  - http:
      method: POST
      url: https://example.test/
      json: { items: [ok, "{{ data.items[ }}"] }
`;
    const [only, ...rest] = issuesOf(text);
    expect(rest).toEqual([]);
    expect(only).toMatchObject({ line: 7, column: 27, path: "steps/0/http/json/items/1" });
    expect(only?.message).toMatch(/^invalid expression \{\{ data\.items\[ \}\}: /);
  });

  it("an unclosed template", () => {
    const text = 'id: s\nname: S\nsteps:\n  - log: "Hi {{ inputs.name"\n';
    expect(issuesOf(text)).toEqual([
      issue(4, 10, "steps/0/log", 'unclosed "{{" in "Hi {{ inputs.name"'),
    ]);
  });

  it("a bad if, bare or in braces, and text around a template in an if", () => {
    const text = `id: s
name: S
steps:
  - log: a
    if: data.n >
  - log: b
    if: "{{ data.n > }}"
  - log: c
    if: "n is {{ data.n }}"
`;
    expect(issuesOf(text)).toEqual([
      issue(5, 9, "steps/0/if", "invalid expression {{ data.n > }}: Unexpected end of expression"),
      issue(7, 9, "steps/1/if", "invalid expression {{ data.n > }}: Unexpected end of expression"),
      issue(
        9,
        9,
        "steps/2/if",
        '"if" takes one expression, bare or in one {{ }}, got "n is {{ data.n }}"',
      ),
    ]);
  });

  it("nothing for good expressions in every place", () => {
    const text = `id: s
name: S
inputs:
  - { json_key: go, data_type: boolean }
  - { json_key: path, data_type: string }
steps:
  - id: fetch
    if: "{{ inputs.go }}"
    http:
      url: "https://example.test/{{ inputs.path }}"
      headers: { X-Total: "{{ $string(1 + 2) }}" }
      json: { nested: { list: ["{{ {'a': {'b': 1}} }}"] } }
  - log: "{{ steps.fetch.status }}"
    if: steps.fetch.status = 200
`;
    expect(parseSkillDefinition(text, "skill.yaml").steps).toHaveLength(2);
  });
});
