import { describe, expect, it } from "vitest";
import { parseSkillDefinition } from "../definition/parse.js";
import { executeSkill } from "./execute-skill.js";
import type { EngineLimits } from "./limits.js";

async function run(steps: string, limits: Partial<EngineLimits>) {
  const definition = parseSkillDefinition(`id: s\nname: S\nsteps:\n${steps}`, "s.yaml");
  return executeSkill({
    definition,
    inputs: {},
    run: { id: "run_1", skill_id: "s" },
    signal: new AbortController().signal,
    onEvent: () => undefined,
    limits,
  });
}

describe("the run's data limit", () => {
  it("fails the step that would grow the data past it, keeping the data as it was", async () => {
    const result = await run(
      `  - set: { small: "{{ $pad('', 100, 'a') }}" }
  - id: big
    set: { big: "{{ $pad('', 2000, 'b') }}" }
  - set: { never: true }
`,
      { dataBytes: 1024 },
    );
    expect(result).toMatchObject({
      outcome: "failed",
      data: { small: "a".repeat(100) },
      error: {
        step: "big",
        message:
          "the run's data would be 2.1 KB as JSON, over its limit of 1 KB; save less (e.g. a part of the response) or raise the limit",
      },
    });
  });

  it("lets data grow up to the limit", async () => {
    const result = await run(`  - set: { v: "{{ $pad('', 1000, 'a') }}" }\n`, { dataBytes: 1024 });
    expect(result.outcome).toBe("finished");
  });
});
