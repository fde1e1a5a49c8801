import { describe, expect, it } from "vitest";
import { SkillDefinitionError } from "../definition/errors.js";
import { parseSkillDefinition } from "../definition/parse.js";
import { executeSkill } from "../run/execute-skill.js";
import type { EngineEvent } from "../run/types.js";

async function run(steps: string, inputs: Record<string, string> = {}) {
  const declared = Object.keys(inputs).map((key) => `{ json_key: ${key}, data_type: string }`);
  const definition = parseSkillDefinition(
    `id: s\nname: S\ninputs: [${declared.join(", ")}]\nsteps:\n${steps}`,
    "s.yaml",
  );
  const events: EngineEvent[] = [];
  const result = await executeSkill({
    definition,
    inputs,
    run: { id: "run_1", skill_id: "s" },
    signal: new AbortController().signal,
    onEvent: (event) => events.push(event),
  });
  return { result, events };
}

describe("the fail step", () => {
  it("fails the run with its rendered message, naming the step, keeping the data so far", async () => {
    const { result, events } = await run(
      `  - set: { count: 0 }
  - id: none_found
    if: "{{ data.count = 0 }}"
    fail: "no invoices for {{ inputs.month }}"
  - log: never reached
`,
      { month: "2026-11" },
    );
    expect(result).toEqual({
      outcome: "failed",
      data: { count: 0 },
      error: { step: "none_found", message: "no invoices for 2026-11" },
      step: { index: 1, id: "none_found", kind: "fail", label: "none_found" },
    });
    expect(events.filter((event) => event.type === "log")).toEqual([]);
  });

  it("is skipped like any step when its if is false", async () => {
    const { result } = await run('  - if: "false"\n    fail: never\n  - set: { done: true }\n');
    expect(result).toEqual({ outcome: "finished", data: { done: true } });
  });

  it("is never retried: asking twice cannot change a deliberate failure", async () => {
    const { result, events } = await run(
      "  - fail: stop\n    retry: { attempts: 3, backoff: 1s }\n",
    );
    expect(result).toMatchObject({ outcome: "failed", error: { message: "stop" } });
    expect(events.filter((event) => event.type === "step_failed")).toMatchObject([
      { attempt: 1, will_retry: false },
    ]);
  });

  it("is refused at import with an empty message or a broken template", () => {
    expect(() => parseSkillDefinition('id: s\nname: S\nsteps:\n  - fail: ""\n', "s.yaml")).toThrow(
      SkillDefinitionError,
    );
    expect(() =>
      parseSkillDefinition('id: s\nname: S\nsteps:\n  - fail: "{{ 1 + }}"\n', "s.yaml"),
    ).toThrow(/s\.yaml:4:\d+: steps\/0\/fail: invalid expression/);
  });
});
