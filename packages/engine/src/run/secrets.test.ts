import { describe, expect, it } from "vitest";
import { SkillDefinitionError } from "../definition/errors.js";
import { parseSkillDefinition } from "../definition/parse.js";
import { executeSkill } from "./execute-skill.js";
import { SecretMask } from "./secret-mask.js";
import type { EngineEvent, ExecuteSkillOptions } from "./types.js";

const TOKEN = "tok-3f9a-SECRET";
const PASSWORD = "pw-correct horse";

const SKILL = parseSkillDefinition(
  `id: s
name: S
inputs:
  - { json_key: user, data_type: string }
  - { json_key: password, data_type: string, secret: true }
steps:
  - log: "token {{ secrets.api_token }} for {{ inputs.user }} / {{ inputs.password }}"
  - set:
      header: "Bearer {{ secrets.api_token }}"
      both: { list: ["{{ inputs.password }}"], length: "{{ $length(secrets.api_token) }}" }
      upper: "{{ $uppercase(secrets.api_token) }}"
  - if: "secrets.api_token = '${TOKEN}'"
    fail: "refused {{ inputs.password }} with {{ secrets.api_token }}"
`,
  "s.yaml",
);

async function execute(options: Partial<ExecuteSkillOptions> = {}) {
  const events: EngineEvent[] = [];
  const result = await executeSkill({
    definition: SKILL,
    inputs: { user: "ada", password: PASSWORD },
    secrets: { api_token: TOKEN },
    run: { id: "run_1", skill_id: "s" },
    signal: new AbortController().signal,
    onEvent: (event) => events.push(event),
    ...options,
  });
  return { result, events };
}

describe("secrets in a run", () => {
  it("reads secrets.NAME in expressions, and masks secrets and secret inputs in every event and the result", async () => {
    const { result, events } = await execute();
    const reported = JSON.stringify({ result, events });
    expect(reported).not.toContain(TOKEN);
    expect(reported).not.toContain(PASSWORD);

    expect(events.find((e) => e.type === "log")).toMatchObject({
      message: "token *** for ada / ***",
    });
    expect(events.find((e) => e.type === "data_updated")).toMatchObject({
      changes: { header: "Bearer ***", both: { list: ["***"], length: TOKEN.length } },
    });
    // The condition compared the clear value: the fail step ran.
    expect(result).toMatchObject({
      outcome: "failed",
      error: { step: "step 3 (fail)", message: "refused *** with ***" },
      data: { header: "Bearer ***", both: { list: ["***"] } },
    });
    expect(events.find((e) => e.type === "step_failed")).toMatchObject({
      message: "refused *** with ***",
    });
    expect(events.find((e) => e.type === "run_failed")).toMatchObject({
      error: { message: "refused *** with ***" },
    });
  });

  it("cannot recognise a value an expression transformed", async () => {
    const { result } = await execute();
    expect(result.data.upper).toBe(TOKEN.toUpperCase());
  });

  it("fills the masker it is given, so its caller can mask what it reports itself", async () => {
    const masker = new SecretMask();
    await execute({ masker });
    expect(masker.maskText(`a ${TOKEN} b ${PASSWORD}`)).toBe("a *** b ***");
  });

  it("sees no secrets when none are given", async () => {
    const definition = parseSkillDefinition(
      'id: s\nname: S\nsteps:\n  - set: { t: "{{ secrets.api_token }}", n: "{{ $count($keys(secrets)) }}" }\n',
      "s.yaml",
    );
    const { result } = await execute({ definition, inputs: {}, secrets: undefined });
    expect(result).toEqual({ outcome: "finished", data: { t: null, n: 0 } });
  });
});

describe("a call of a skill with a secret input", () => {
  it("masks what the call gives that input, in the called skill's events and after", async () => {
    const login = parseSkillDefinition(
      `id: skill_login
name: Login
inputs:
  - { json_key: password, data_type: string, secret: true }
steps:
  - log: "using {{ inputs.password }}"
`,
      "login.yaml",
    );
    const caller = parseSkillDefinition(
      `id: s
name: S
steps:
  - let: { pw: "pw-from-a-variable" }
  - call: { skill: skill_login, inputs: { password: "{{ vars.pw }}" } }
  - set: { after: "{{ vars.pw }}" }
`,
      "s.yaml",
    );
    const { result, events } = await execute({
      definition: caller,
      inputs: {},
      secrets: {},
      skills: { skill_login: login },
    });
    expect(events.find((e) => e.type === "log")).toMatchObject({ message: "using ***" });
    expect(result).toEqual({ outcome: "finished", data: { after: "***" } });
  });
});

describe("an input declared secret: true", () => {
  function problemsOf(inputs: string): string[] {
    try {
      parseSkillDefinition(`id: s\nname: S\ninputs:\n${inputs}steps:\n  - log: hi\n`, "s.yaml");
    } catch (error) {
      if (error instanceof SkillDefinitionError) {
        return error.issues.map((i) => `${i.line}:${i.column} ${i.message}`);
      }
      throw error;
    }
    return [];
  }

  it("is a string without a default", () => {
    expect(problemsOf("  - { json_key: pin, data_type: number, secret: true }\n")).toEqual([
      '4:33 a secret input must have data_type "string", got "number"',
    ]);
    expect(
      problemsOf(
        "  - { json_key: pw, data_type: string, secret: true, required: false, default: x }\n",
      ),
    ).toEqual([
      "4:71 a secret input cannot have a default: the skill, and its defaults, are stored and shown in clear",
    ]);
  });

  it("keeps secret: true in the definition and drops secret: false", () => {
    const definition = parseSkillDefinition(
      `id: s
name: S
inputs:
  - { json_key: a, data_type: string, secret: true }
  - { json_key: b, data_type: string, secret: false }
steps:
  - log: hi
`,
      "s.yaml",
    );
    expect(definition.inputs).toEqual([
      { id: "input_a", json_key: "a", data_type: "string", required: true, secret: true },
      { id: "input_b", json_key: "b", data_type: "string", required: true },
    ]);
  });
});
