import { describe, expect, it } from "vitest";
import { parseSkillDefinition } from "../definition/parse.js";
import type { SkillDefinition } from "../definition/types.js";
import type { Checkpoint, CheckpointLevel } from "./checkpoint.js";
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
  const checkpoints: Checkpoint[] = [];
  const result = await executeSkill({
    definition,
    inputs: {},
    run: { id: "run_1", skill_id: definition.id },
    signal: new AbortController().signal,
    onEvent: (event) => events.push(event),
    onCheckpoint: (checkpoint) => checkpoints.push(structuredClone(checkpoint)),
    ...options,
  });
  return { result, events, checkpoints };
}

/** The labels of the steps that began, in order. */
const started = (events: EngineEvent[]) =>
  events.flatMap((event) => (event.type === "step_started" ? [event.step.label] : []));

// A loop inside a called skill: the deepest path a checkpoint has.
const pages = skill(
  `inputs: [{ json_key: n, data_type: number }]
steps:
  - id: rows
    for_each: { items: "{{ [1, 2, 3] }}", as: row, steps: [{ let: { total: "{{ $sum([vars.total ? vars.total : 0, vars.row * inputs.n]) }}" } }, { log: "row {{ vars.row }}" }] }
  - set: { total: "{{ vars.total }}" }`,
  "pages",
);
const outer = skill(`steps:
  - set: { before: 1 }
  - id: sum
    call: { skill: pages, inputs: { n: 10 } }
  - set: { after: "{{ steps.sum.total }}" }`);
const skills = { pages };

describe("checkpoints", () => {
  it("are told before every step, with where the run is and what it holds", async () => {
    const { result, checkpoints } = await execute(outer, { skills });
    expect(result).toMatchObject({ outcome: "finished", data: { before: 1, after: 60 } });
    expect(checkpoints.map((checkpoint) => checkpoint.step)).toEqual([
      "step 1 (set)",
      "sum",
      "sum › rows",
      "sum › rows #1 › step 1 (let)",
      "sum › rows #1 › step 2 (log)",
      "sum › rows #2 › step 1 (let)",
      "sum › rows #2 › step 2 (log)",
      "sum › rows #3 › step 1 (let)",
      "sum › rows #3 › step 2 (log)",
      "sum › step 2 (set)",
      "step 3 (set)",
    ]);
    const inLoop = checkpoints[5] as Checkpoint;
    expect(inLoop.path).toEqual([
      { index: 1 },
      { index: 0, round: 2, items: [1, 2, 3] },
      { index: 0 },
    ]);
    expect(inLoop.steps_run).toBe(5);
    expect(inLoop.skills.map((snapshot) => snapshot.skill_id)).toEqual(["s", "pages"]);
    expect(inLoop.skills[0]?.data).toEqual({ before: 1 });
    expect(inLoop.skills[1]).toMatchObject({ inputs: { n: 10 }, vars: { row: 2, total: 10 } });
  });

  it("let a run go on from one without repeating what came before it", async () => {
    const { checkpoints } = await execute(outer, { skills });
    const inLoop = checkpoints[5] as Checkpoint;
    const {
      result,
      events,
      checkpoints: after,
    } = await execute(outer, {
      skills,
      resume: inLoop,
    });
    expect(result).toMatchObject({ outcome: "finished", data: { before: 1, after: 60 } });
    // Round 2 goes on at its first step; rounds before it and the steps before the call are not run.
    expect(started(events)).toEqual([
      "sum",
      "sum › rows",
      "sum › rows #2 › step 1 (let)",
      "sum › rows #2 › step 2 (log)",
      "sum › rows #3 › step 1 (let)",
      "sum › rows #3 › step 2 (log)",
      "sum › step 2 (set)",
      "step 3 (set)",
    ]);
    expect(after[0]?.step).toBe("sum › rows #2 › step 1 (let)");
    expect(after.at(-1)?.steps_run).toBe(checkpoints.at(-1)?.steps_run);
  });

  it("resume a for_each over the items it began with, not those resolved again", async () => {
    const loop = skill(`steps:
  - let: { list: [a, b, c] }
  - id: each
    for_each: { items: "{{ vars.list }}", steps: [{ let: { list: [x] } }, { set: { "last": "{{ vars.item }}" } }] }`);
    const { checkpoints } = await execute(loop);
    const second = checkpoints.find((checkpoint) => checkpoint.step === "each #2 › step 1 (let)");
    const { result } = await execute(loop, { resume: second as Checkpoint });
    expect(result).toMatchObject({ outcome: "finished", data: { last: "c" } });
  });

  it("run on_resume steps first after a restore, and take none inside them", async () => {
    const definition = skill(`on_resume:
  - set: { restored: "{{ data.first }}" }
steps:
  - set: { first: 1 }
  - set: { second: 2 }`);
    const { checkpoints } = await execute(definition);
    const {
      result,
      events,
      checkpoints: after,
    } = await execute(definition, {
      resume: checkpoints[1] as Checkpoint,
    });
    expect(result).toMatchObject({
      outcome: "finished",
      data: { first: 1, restored: 1, second: 2 },
    });
    expect(started(events)).toEqual(["on_resume › step 1 (set)", "step 2 (set)"]);
    expect(after.map((checkpoint) => checkpoint.step)).toEqual(["step 2 (set)"]);
    const told = events.find((event) => event.type === "log");
    expect(told).toMatchObject({
      message: "going on from the checkpoint before step step 2 (set)",
    });
  });

  it("let a parked wait go on until the end it had, not for its whole duration again", async () => {
    const definition = skill(
      "steps:\n  - set: { a: 1 }\n  - id: nap\n    wait: 1h\n  - set: { b: 2 }",
    );
    const waits: number[] = [];
    const controller = new AbortController();
    // The first execution is stopped once the wait has begun, as a parked run's is.
    const first = execute(definition, {
      signal: controller.signal,
      onWait: (_step, until) => {
        waits.push(until);
        controller.abort("park");
      },
    });
    const { checkpoints } = await first;
    expect(waits).toHaveLength(1);
    const beforeNap = checkpoints.find((checkpoint) => checkpoint.step === "nap") as Checkpoint;
    const parked: Checkpoint = {
      ...beforeNap,
      path: [
        {
          ...(beforeNap.path[0] as CheckpointLevel),
          until: new Date(Date.now() + 50).toISOString(),
        },
      ],
    };
    const { result, events } = await execute(definition, { resume: parked });
    expect(result).toMatchObject({ outcome: "finished", data: { a: 1, b: 2 } });
    // The wait went on until its end (the test would time out waiting an hour), then the rest.
    expect(started(events)).toEqual(["nap", "step 3 (set)"]);
  }, 5_000);

  it("fail the run when the checkpoint names no step of the skill as it is now", async () => {
    const definition = skill("steps:\n  - set: { a: 1 }\n  - set: { b: 2 }");
    const { checkpoints } = await execute(definition);
    const shorter = skill("steps:\n  - set: { a: 1 }");
    const { result, events } = await execute(shorter, { resume: checkpoints[1] as Checkpoint });
    expect(result).toMatchObject({
      outcome: "failed",
      error: {
        step: null,
        message:
          "cannot go on from the checkpoint: step step 2 (set) is not where it was in the skill",
      },
    });
    expect(started(events)).toEqual([]);
  });

  it("refuse a checkpoint of another version", async () => {
    const definition = skill("steps:\n  - set: { a: 1 }");
    const { checkpoints } = await execute(definition);
    const other = { ...(checkpoints[0] as Checkpoint), version: 2 } as unknown as Checkpoint;
    const { result } = await execute(definition, { resume: other });
    expect(result).toMatchObject({
      outcome: "failed",
      error: { message: "cannot go on from the checkpoint: the checkpoint's version 2 is not 1" },
    });
  });
});
