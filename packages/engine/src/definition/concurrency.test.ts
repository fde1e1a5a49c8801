import { describe, expect, it } from "vitest";
import { renderConcurrencyKey } from "./concurrency.js";
import { SkillDefinitionError } from "./errors.js";
import { parseSkillDefinition } from "./parse.js";

const INPUTS = `inputs:
  - { json_key: site, data_type: string }
  - { json_key: account, data_type: object }
  - { json_key: password, data_type: string, secret: true }
steps:
  - log: hi
`;

function parse(head: string) {
  return parseSkillDefinition(`id: s\nname: S\n${head}\n${INPUTS}`, "skill.yaml");
}

/** The messages of the issues a definition with `head` has. */
function problemsOf(head: string): string[] {
  try {
    parse(head);
  } catch (error) {
    if (error instanceof SkillDefinitionError) return error.issues.map((issue) => issue.message);
    throw error;
  }
  return [];
}

describe("concurrency and concurrency_key", () => {
  it("are kept as written", () => {
    expect(parse("concurrency: 2\nconcurrency_key: 'site-{{ inputs.site }}'")).toMatchObject({
      concurrency: 2,
      concurrency_key: "site-{{ inputs.site }}",
    });
    expect(parse("concurrency: 1")).not.toHaveProperty("concurrency_key");
  });

  it("refuse a concurrency that is not a positive integer up to 1000", () => {
    for (const value of ["0", "-1", "1.5", "1001", "two"]) {
      expect(problemsOf(`concurrency: ${value}`), value).toHaveLength(1);
    }
    expect(problemsOf("concurrency: 1000")).toEqual([]);
  });

  it("refuse a key without concurrency, without a template, or reading anything but a plain input", () => {
    expect(problemsOf("concurrency_key: '{{ inputs.site }}'")).toEqual([
      "concurrency_key needs concurrency: how many runs of one key at once",
    ]);
    expect(problemsOf("concurrency: 1\nconcurrency_key: example.com")[0]).toMatch(
      /holds no \{\{ inputs/,
    );
    expect(problemsOf("concurrency: 1\nconcurrency_key: '{{ $uppercase(inputs.site) }}'")).toEqual([
      "concurrency_key may only read inputs, as {{ inputs.site }}: {{ $uppercase(inputs.site) }} is not a path into the inputs",
    ]);
    expect(problemsOf("concurrency: 1\nconcurrency_key: '{{ vars.x }}'")).toHaveLength(1);
    expect(problemsOf("concurrency: 1\nconcurrency_key: '{{ inputs.nope }}'")).toEqual([
      "concurrency_key reads inputs.nope, which the skill does not declare",
    ]);
    expect(problemsOf("concurrency: 1\nconcurrency_key: '{{ inputs.password }}'")).toEqual([
      "concurrency_key reads the secret input password: a key is stored in clear",
    ]);
    expect(problemsOf("concurrency: 1\nconcurrency_key: '{{ inputs.site'")).toHaveLength(1);
  });

  it("render a key from the inputs as templates read values", () => {
    const inputs = { site: "shop.example", account: { id: 7, tags: ["a"] } };
    expect(renderConcurrencyKey("{{ inputs.site }}", inputs)).toBe("shop.example");
    expect(renderConcurrencyKey("{{inputs.site}}/{{ inputs.account.id }}", inputs)).toBe(
      "shop.example/7",
    );
    expect(renderConcurrencyKey("{{ inputs.account.tags }}", inputs)).toBe('["a"]');
    expect(renderConcurrencyKey("k-{{ inputs.missing.deeper }}", inputs)).toBe("k-");
  });
});
