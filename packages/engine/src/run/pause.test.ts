import { describe, expect, it } from "vitest";
import { SkillDefinitionError, type SkillDefinitionIssue } from "../definition/errors.js";
import { parseSkillDefinition } from "../definition/parse.js";
import { executeSkill } from "./execute-skill.js";
import type { EngineEvent, ExecuteSkillOptions, PauseRequest } from "./types.js";

// A run pauses for its supplier at an `ask` step, and before a step when a client asked: the
// supplier resumes it with the answer, or the run's abort ends the wait.

function execute(body: string, options: Partial<ExecuteSkillOptions> = {}) {
  const events: EngineEvent[] = [];
  const definition = parseSkillDefinition(`id: s\nname: s\n${body}`, "s.yaml");
  const result = executeSkill({
    definition,
    inputs: { who: "Ada" },
    run: { id: "run_1", skill_id: "s" },
    signal: new AbortController().signal,
    onEvent: (event) => events.push(event),
    ...options,
  });
  return { result, events };
}

// Line numbers count the two lines (id, name) put before the body.
function issuesOf(body: string): SkillDefinitionIssue[] {
  try {
    parseSkillDefinition(`id: s\nname: s\n${body}`, "skill.yaml");
  } catch (error) {
    if (error instanceof SkillDefinitionError) return [...error.issues];
    throw error;
  }
  throw new Error("expected a SkillDefinitionError");
}

const INPUTS = `inputs:
  - { json_key: who, data_type: string }
`;

describe("ask", () => {
  it("pauses with its rendered prompt and schema, then saves the answer it is resumed with", async () => {
    const asked: PauseRequest[] = [];
    const { result } = execute(
      `${INPUTS}steps:
  - id: code
    ask:
      prompt: "Code sent to {{ inputs.who }}'s phone?"
      schema: { type: object, required: [code], properties: { code: { type: string } } }
      save_as: vars.answer
      timeout: 5m
  - set: { got: "{{ vars.answer.code }}", same: "{{ steps.code = vars.answer }}" }
`,
      {
        pause: async (request) => {
          asked.push(request);
          return { code: "123456" };
        },
      },
    );

    expect(await result).toEqual({ outcome: "finished", data: { got: "123456", same: true } });
    expect(asked).toEqual([
      {
        reason: "ask",
        step: { index: 0, id: "code", kind: "ask", label: "code" },
        prompt: "Code sent to Ada's phone?",
        schema: { type: "object", required: ["code"], properties: { code: { type: "string" } } },
        timeoutMs: 300_000,
      },
    ]);
  });

  it("waits an hour by default and takes any answer without a schema", async () => {
    const asked: PauseRequest[] = [];
    const { result } = execute(`steps:\n  - ask: { prompt: Go on?, save_as: ok }\n`, {
      pause: async (request) => {
        asked.push(request);
        return undefined;
      },
    });

    expect(await result).toMatchObject({ outcome: "finished" });
    expect(asked[0]).toMatchObject({ schema: {}, timeoutMs: 3_600_000 });
  });

  it("fails clearly where nothing can answer", async () => {
    const { result } = execute(`steps:\n  - ask: { prompt: Code? }\n`);

    expect(await result).toMatchObject({
      outcome: "failed",
      error: {
        step: "step 1 (ask)",
        message: "nothing can answer this run: ask needs a Skillrun server to resume the run",
      },
    });
  });

  it("ends as aborted when the run is stopped while it waits", async () => {
    const stop = new AbortController();
    const { result } = execute(`steps:\n  - ask: { prompt: Code? }\n  - set: { never: true }\n`, {
      signal: stop.signal,
      pause: () => {
        setTimeout(() => stop.abort("cancel"), 20);
        return new Promise(() => undefined);
      },
    });

    expect(await result).toMatchObject({ outcome: "aborted", reason: "cancel", data: {} });
  });
});

describe("a pause a client asks for", () => {
  it("happens before the next step, once, inside blocks too, and the run goes on after it", async () => {
    let requests = 1;
    const paused: string[] = [];
    const { result, events } = execute(
      `steps:
  - set: { a: 1 }
  - repeat:
      max: 3
      until: "vars.i = 2"
      steps:
        - let: { i: "{{ (vars.i ? vars.i : 0) + 1 }}" }
  - set: { b: 2 }
`,
      {
        pauseRequested: () => {
          // Asked for again while the second iteration runs.
          const asked = requests > 0;
          requests -= 1;
          return asked;
        },
        pause: async (request) => {
          paused.push(request.step.label);
          if (paused.length === 1) requests = 3;
          return undefined;
        },
      },
    );

    expect(await result).toEqual({ outcome: "finished", data: { a: 1, b: 2 } });
    expect(paused).toEqual([
      "step 1 (set)",
      "step 2 (repeat)",
      "step 2 (repeat) #1 › step 1 (let)",
      "step 2 (repeat) #2 › step 1 (let)",
    ]);
    // Every step still ran once.
    expect(events.filter((event) => event.type === "step_finished")).toHaveLength(5);
  });
});

describe("an ask's definition", () => {
  it("refuses a pattern, a reference and an unknown type at their line", () => {
    const issues = issuesOf(`steps:
  - ask:
      prompt: Code?
      schema:
        type: object
        properties:
          code: { type: string, pattern: "^(a+)+$" }
          other: { $ref: "#/x" }
          kind: { type: text }
`);

    expect(issues.map(({ line, path }) => `${line} ${path}`)).toEqual([
      "9 steps/0/ask/schema/properties/code/pattern",
      "10 steps/0/ask/schema/properties/other/$ref",
      "11 steps/0/ask/schema/properties/kind/type",
    ]);
  });

  it("refuses a schema nested too deep, and a timeout past 24h", () => {
    const deep = `${"{ type: array, items: ".repeat(9)}{ type: string }${" }".repeat(9)}`;
    const issues = issuesOf(`steps:
  - ask: { prompt: Code?, schema: ${deep} }
  - ask: { prompt: Again?, timeout: 25h }
`);

    expect(issues.map(({ line, path, message }) => `${line} ${path}: ${message}`)).toEqual([
      "4 steps/0/ask/schema: the answer schema nests deeper than 8 levels",
      expect.stringMatching(/^5 steps\/1\/ask\/timeout: .*longer than 24h/),
    ]);
  });
});
