import { describe, expect, it } from "vitest";
import { parseSkillDefinition } from "../definition/parse.js";
import type { SkillDefinition } from "../definition/types.js";
import { executeSkill } from "./execute-skill.js";
import type { EngineEvent, ExecuteSkillOptions } from "./types.js";

function skill(body: string, id = "s"): SkillDefinition {
  return parseSkillDefinition(`id: ${id}\nname: ${id}\n${body}`, `${id}.yaml`);
}

async function execute(
  definition: SkillDefinition,
  options: Partial<Omit<ExecuteSkillOptions, "definition" | "onEvent">> = {},
) {
  const events: EngineEvent[] = [];
  const result = await executeSkill({
    definition,
    inputs: {},
    run: { id: "run_1", skill_id: definition.id },
    signal: new AbortController().signal,
    onEvent: (event) => events.push(event),
    ...options,
  });
  return { result, events };
}

const labelsOf = (events: EngineEvent[], type: EngineEvent["type"]) =>
  events.flatMap((event) => (event.type === type && "step" in event ? [event.step?.label] : []));

describe("let and vars", () => {
  it("keeps scratch variables out of the run's data", async () => {
    const { result, events } = await execute(
      skill(`steps:
  - let: { n: 2, rows: [] }
  - let: { n: "{{ vars.n * 10 }}", rows: "{{ $append(vars.rows, 'a') }}" }
  - set: { total: "{{ vars.n }}", rows: "{{ vars.rows }}" }
`),
    );
    expect(result).toEqual({ outcome: "finished", data: { total: 20, rows: ["a"] } });
    const changes = events.flatMap((e) => (e.type === "data_updated" ? [e.changes] : []));
    expect(changes).toEqual([{ total: 20, rows: ["a"] }]);
  });

  it("refuses variables past their limit, naming it", async () => {
    const { result } = await execute(
      skill(`steps:
  - let: { big: "{{ $pad('', 2000, 'x') }}" }
`),
      { limits: { varsBytes: 1000 } },
    );
    expect(result.outcome).toBe("failed");
    if (result.outcome !== "failed") return;
    expect(result.error.message).toMatch(/variables would be .* over their limit of 1000 bytes/);
  });
});

describe("repeat", () => {
  it("stops as soon as until holds, labelling each round", async () => {
    const { result, events } = await execute(
      skill(`steps:
  - let: { n: 0 }
  - id: count
    repeat:
      max: 10
      until: "{{ vars.n = 3 }}"
      steps:
        - id: bump
          let: { n: "{{ vars.n + 1 }}" }
  - set: { n: "{{ vars.n }}", rounds: "{{ steps.count.iterations }}" }
`),
    );
    expect(result).toEqual({ outcome: "finished", data: { n: 3, rounds: 3 } });
    expect(labelsOf(events, "step_finished")).toEqual([
      "step 1 (let)",
      "count #1 › bump",
      "count #2 › bump",
      "count #3 › bump",
      "count",
      "step 3 (set)",
    ]);
  });

  it("runs exactly max rounds without until", async () => {
    const { result } = await execute(
      skill(`steps:
  - let: { n: 0 }
  - repeat: { max: 4, steps: [{ let: { n: "{{ vars.n + 1 }}" } }] }
  - set: { n: "{{ vars.n }}" }
`),
    );
    expect(result).toEqual({ outcome: "finished", data: { n: 4 } });
  });

  it("fails past max when until never holds", async () => {
    const { result } = await execute(
      skill(`steps:
  - id: pages
    repeat: { max: 2, until: "false", steps: [{ log: tick }] }
`),
    );
    expect(result).toMatchObject({
      outcome: "failed",
      error: {
        step: "pages",
        message: '"until" did not hold after 2 rounds, the loop\'s max: false',
      },
    });
  });

  it("names the inner step and round of a failure, and keeps what was saved", async () => {
    const { result, events } = await execute(
      skill(`steps:
  - id: pages
    repeat:
      max: 5
      steps:
        - id: page
          set: { seen: "{{ $exists(data.seen) ? data.seen + 1 : 1 }}" }
        - if: "{{ data.seen = 2 }}"
          fail: "page {{ data.seen }} is broken"
`),
    );
    expect(result).toEqual({
      outcome: "failed",
      data: { seen: 2 },
      error: { step: "pages #2 › step 2 (fail)", message: "page 2 is broken" },
      step: { index: 1, kind: "fail", label: "pages #2 › step 2 (fail)" },
    });
    const failed = events.filter((e) => e.type === "step_failed");
    expect(failed.map((e) => e.type === "step_failed" && e.message)).toEqual([
      "page 2 is broken",
      "pages #2 › step 2 (fail): page 2 is broken",
    ]);
  });

  it("retries a whole block, but never a deliberate failure inside it", async () => {
    const retried = await execute(
      skill(`steps:
  - let: { tries: 0 }
  - repeat: { max: 1, steps: [{ let: { tries: "{{ vars.tries + 1 }}" } }, { if: "vars.tries < 3", http: { url: "http://127.0.0.1:1/" } }] }
    retry: { attempts: 3 }
  - set: { tries: "{{ vars.tries }}" }
`),
    );
    expect(retried.result).toEqual({ outcome: "finished", data: { tries: 3 } });
    const deliberate = await execute(
      skill(`steps:
  - repeat: { max: 1, steps: [{ fail: no }] }
    retry: { attempts: 3 }
`),
    );
    const starts = deliberate.events.filter(
      (e) => e.type === "step_started" && e.step.kind === "repeat",
    );
    expect(starts).toHaveLength(1);
  });

  it("bounds a block by its timeout, inner steps included", async () => {
    const started = Date.now();
    const { result } = await execute(
      skill(`steps:
  - id: slow
    timeout: 200ms
    repeat: { max: 100, steps: [{ wait: 50ms }] }
`),
    );
    expect(Date.now() - started).toBeLessThan(2000);
    expect(result).toMatchObject({
      outcome: "failed",
      error: { step: "slow", message: "step timed out after 200ms" },
    });
  });

  it("gives way to a cancel even when its steps never wait", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort("cancelled"), 100);
    const { result } = await execute(
      skill(`steps:
  - repeat: { max: 10000, steps: [{ let: { a: 1 } }, { let: { b: 2 } }] }
`),
      { signal: controller.signal, limits: { steps: 1_000_000 } },
    );
    expect(result).toMatchObject({ outcome: "aborted", reason: "cancelled" });
  });

  it("stops a run past its step limit", async () => {
    const { result } = await execute(
      skill(`steps:
  - repeat: { max: 100, steps: [{ repeat: { max: 100, steps: [{ let: { a: 1 } }] } }] }
`),
      { limits: { steps: 500 } },
    );
    expect(result.outcome).toBe("failed");
    if (result.outcome !== "failed") return;
    expect(result.error.message).toMatch(/the run has started 500 steps, its limit/);
    expect(result.error.step).toMatch(
      /^step 1 \(repeat\) #\d+ › step 1 \(repeat\) #\d+ › step 1 \(let\)$/,
    );
  });
});

describe("for_each", () => {
  it("puts each item and its index in vars", async () => {
    const { result, events } = await execute(
      skill(`steps:
  - let: { seen: [] }
  - id: rows
    for_each:
      items: "{{ [{'n': 'a', 'amount': '50'}, {'n': 'b', 'amount': '150'}, {'n': 'c', 'amount': '300'}][$number(amount) > 100] }}"
      as: row
      steps:
        - let: { seen: "{{ $append(vars.seen, vars.row.n & '@' & vars.row_index) }}" }
  - set: { seen: "{{ vars.seen }}", count: "{{ steps.rows.iterations }}" }
`),
    );
    expect(result).toEqual({ outcome: "finished", data: { seen: ["b@0", "c@1"], count: 2 } });
    expect(labelsOf(events, "step_started")).toContain("rows #2 › step 1 (let)");
  });

  it("names its item `item` when `as` is absent, and takes no items as no rounds", async () => {
    const { result } = await execute(
      skill(`steps:
  - for_each: { items: [1, 2], steps: [{ set: { last: "{{ vars.item }}" } }] }
  - for_each: { items: [], steps: [{ fail: never }] }
`),
    );
    expect(result).toEqual({ outcome: "finished", data: { last: 2 } });
  });

  it("fails on items that are not a list", async () => {
    const { result } = await execute(
      skill(`steps:
  - for_each: { items: "{{ 'abc' }}", steps: [{ log: x }] }
`),
    );
    expect(result).toMatchObject({
      outcome: "failed",
      error: { message: '"items" should give a list, got "abc"' },
    });
  });
});

describe("optional", () => {
  it("logs a failure and goes on, the step's result being the error", async () => {
    const { result, events } = await execute(
      skill(`steps:
  - id: flaky
    optional: true
    fail: "banner not found"
  - set: { flaky: "{{ steps.flaky }}" }
`),
    );
    expect(result).toEqual({
      outcome: "finished",
      data: { flaky: { error: "banner not found" } },
    });
    const logs = events.flatMap((e) => (e.type === "log" ? [`${e.level}: ${e.message}`] : []));
    expect(logs).toEqual(["warn: optional step failed, the run goes on: banner not found"]);
  });

  it("lets a block fail inside an optional block", async () => {
    const { result } = await execute(
      skill(`steps:
  - id: try
    optional: true
    repeat: { max: 1, steps: [{ id: inner, fail: boom }] }
  - set: { result: "{{ steps.try }}" }
`),
    );
    expect(result).toEqual({
      outcome: "finished",
      data: { result: { error: "try #1 › inner: boom" } },
    });
  });
});

describe("output", () => {
  it("is exactly the run's data when present", async () => {
    const { result, events } = await execute(
      skill(`steps:
  - set: { internal: 1 }
  - let: { rows: [{ amount: "10.5" }, { amount: "4.5" }] }
output:
  total: "{{ $sum(vars.rows.($number(amount))) }}"
  count: "{{ $count(vars.rows) }}"
  label: fixed
`),
    );
    expect(result).toEqual({ outcome: "finished", data: { total: 15, count: 2, label: "fixed" } });
    expect(events.at(-1)?.type).toBe("run_finished");
  });

  it("keeps what it can evaluate when the run fails", async () => {
    const { result } = await execute(
      skill(`steps:
  - let: { rows: [1, 2] }
  - fail: stop
output:
  rows: "{{ vars.rows }}"
  broken: "{{ $error('no') }}"
`),
    );
    expect(result).toMatchObject({
      outcome: "failed",
      data: { rows: [1, 2] },
      error: { step: "step 2 (fail)", message: "stop" },
    });
  });

  it("fails the run, naming output, when a value cannot be evaluated", async () => {
    const { result } = await execute(
      skill(`steps:\n  - log: x\noutput:\n  a: "{{ $error('bad') }}"\n`),
    );
    expect(result).toMatchObject({ outcome: "failed", error: { step: "output" } });
  });
});

describe("call", () => {
  const login = skill(
    `inputs:
  - { json_key: user, data_type: string }
  - { json_key: tries, data_type: number, required: false, default: 1 }
steps:
  - set: { who: "{{ inputs.user }}" }
  - if: "{{ inputs.user = 'bad' }}"
    fail: "wrong password for {{ inputs.user }}"
output:
  greeting: "hello {{ data.who }} ({{ inputs.tries }})"
`,
    "skill_login",
  );

  it("runs the called skill with checked inputs and gives its output", async () => {
    const { result, events } = await execute(
      skill(`steps:
  - id: login
    call: { skill: skill_login, inputs: { user: ada, tries: "3" } }
  - set: { greeting: "{{ steps.login.greeting }}" }
`),
      { skills: { skill_login: login } },
    );
    expect(result).toEqual({ outcome: "finished", data: { greeting: "hello ada (3)" } });
    expect(labelsOf(events, "step_started")).toEqual([
      "login",
      "login › step 1 (set)",
      "step 2 (set)",
    ]);
    // The called skill's data is its own: the run reports only its own changes.
    const changes = events.flatMap((e) => (e.type === "data_updated" ? [e.changes] : []));
    expect(changes).toEqual([{ greeting: "hello ada (3)" }]);
  });

  it("labels a call without id after the skill, and fails with the inner step named", async () => {
    const { result } = await execute(
      skill(`steps:\n  - call: { skill: skill_login, inputs: { user: bad } }\n`),
      { skills: { skill_login: login } },
    );
    expect(result).toMatchObject({
      outcome: "failed",
      error: { step: "skill_login › step 2 (fail)", message: "wrong password for bad" },
    });
  });

  it("checks inputs as POST /run/ does", async () => {
    const { result } = await execute(
      skill(`steps:\n  - call: { skill: skill_login, inputs: { tries: abc, extra: 1 } }\n`),
      { skills: { skill_login: login } },
    );
    expect(result).toMatchObject({
      outcome: "failed",
      error: {
        message:
          'the inputs do not fit skill "skill_login": inputs.user: Field required; inputs.tries: Input should be a valid number, unable to parse string as a number; inputs.extra: Extra inputs are not permitted',
      },
    });
  });

  it("passes a file input on as the run file object a step sees", async () => {
    const reader = skill(
      'inputs:\n  - { json_key: doc, data_type: file }\nsteps:\n  - set: { name: "{{ inputs.doc.file }}" }\n',
      "skill_reader",
    );
    const report = {
      file: "report.csv",
      name: "report.csv",
      bytes: 3,
      content_type: "text/csv",
      sha256: "ab",
    };
    const { result } = await execute(
      skill(`inputs:
  - { json_key: report, data_type: file }
steps:
  - id: read
    call: { skill: skill_reader, inputs: { doc: "{{ inputs.report }}" } }
  - set: { read: "{{ steps.read.name }}" }
`),
      { skills: { skill_reader: reader }, inputs: { report } },
    );
    expect(result).toEqual({ outcome: "finished", data: { read: "report.csv" } });
    const refused = await execute(
      skill("steps:\n  - call: { skill: skill_reader, inputs: { doc: { name: x } } }\n"),
      { skills: { skill_reader: reader } },
    );
    expect(refused.result).toMatchObject({
      outcome: "failed",
      error: {
        message:
          'the inputs do not fit skill "skill_reader": inputs.doc: Input should be a valid string',
      },
    });
  });

  it("fails on a skill the run was not given", async () => {
    const { result } = await execute(skill(`steps:\n  - call: { skill: nowhere }\n`));
    expect(result).toMatchObject({
      outcome: "failed",
      error: {
        message: 'skill "nowhere" is not available to this run; import it for the same owner',
      },
    });
  });

  it("refuses calls nested deeper than 8", async () => {
    // A chain a → b → … each calling the next; imports refuse cycles, so only a chain can be deep.
    const skills: Record<string, SkillDefinition> = {};
    for (let depth = 1; depth <= 10; depth += 1) {
      skills[`c${depth}`] = skill(`steps:\n  - call: { skill: c${depth + 1} }\n`, `c${depth}`);
    }
    skills.c11 = skill(`steps:\n  - log: bottom\n`, "c11");
    const deep = await execute(skill(`steps:\n  - call: { skill: c1 }\n`), { skills });
    expect(deep.result).toMatchObject({
      outcome: "failed",
      error: {
        step: "c1 › c2 › c3 › c4 › c5 › c6 › c7 › c8 › step 1 (call)",
        message: 'calls nest deeper than 8 skills; not calling "c9"',
      },
    });
    const { c8: _unused, ...shallowSkills } = skills;
    shallowSkills.c8 = skill(`steps:\n  - log: bottom\n`, "c8");
    const shallow = await execute(skill(`steps:\n  - call: { skill: c1 }\n`), {
      skills: shallowSkills,
    });
    expect(shallow.result.outcome).toBe("finished");
  });
});
