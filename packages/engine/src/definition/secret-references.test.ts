import { describe, expect, it } from "vitest";
import { parseSkillDefinition } from "./parse.js";
import { referencedSecrets } from "./secret-references.js";

describe("referencedSecrets", () => {
  it("finds every secrets.NAME the skill reads, in templates, conditions, blocks and output, once each", () => {
    const definition = parseSkillDefinition(
      `id: s
name: "uses secrets.not_this"
description: "mentions secrets.nor_this"
steps:
  - if: "secrets.flag = 'on'"
    log: "{{ secrets.api_token }} and {{ $$.secrets.\`other\` }}"
  - http:
      url: "https://api.example/{{ secrets.api_token }}"
      headers: { Authorization: "Bearer {{ secrets . spaced }}" }
  - repeat:
      max: 2
      until: "{{ secrets.in_until = 'x' }}"
      steps:
        - log: "plain text secrets.not_an_expression {{ secrets.nested }}"
  - set: { x: "{{ data.secrets.not_a_secret }}", n: "{{ $count($keys(secrets)) }}" }
output:
  o: "{{ secrets.in_output }}"
`,
      "s.yaml",
    );
    expect(referencedSecrets(definition)).toEqual([
      "api_token",
      "flag",
      "in_output",
      "in_until",
      "nested",
      "other",
      "spaced",
    ]);
  });

  it("finds none in a skill that reads no secret", () => {
    const definition = parseSkillDefinition(
      "id: s\nname: S\nsteps:\n  - log: hi {{ run.id }}\n",
      "s.yaml",
    );
    expect(referencedSecrets(definition)).toEqual([]);
  });
});
