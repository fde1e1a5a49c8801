import { describe, expect, it } from "vitest";
import { parseSkillDefinition } from "../definition/parse.js";
import { executeSkill } from "./execute-skill.js";
import { DETAIL_MAX_CHARS, PREVIEW_MAX_CHARS, previewOf, stepDetail } from "./step-detail.js";
import type { EngineEvent } from "./types.js";

const SECRET = "s3cret-VALUE-0123456789";

async function run(steps: string, secrets: Record<string, string> = {}) {
  const events: EngineEvent[] = [];
  const result = await executeSkill({
    definition: parseSkillDefinition(`id: s\nname: S\nsteps:\n${steps}`, "s.yaml"),
    inputs: {},
    secrets,
    run: { id: "run_1", skill_id: "s" },
    signal: new AbortController().signal,
    onEvent: (event) => events.push(event),
  });
  const details = events.flatMap((event) =>
    event.type === "step_finished" || event.type === "step_failed" ? [event.detail] : [],
  );
  return { result, events, details };
}

describe("step detail", () => {
  it("says what set, let, log, wait and fail did, values as JSON previews (a let names its variables only)", async () => {
    const { details } = await run(`
  - set: { price: "12.99", cheap: "{{ 3 < 4 }}", tags: [a, b] }
  - let: { count: 2 }
  - log: "checked {{ data.price }}"
  - wait: 1ms
  - fail: "too dear at {{ data.price }}"
`);
    expect(details).toEqual([
      'price = "12.99", cheap = true, tags = ["a","b"]',
      "vars.count",
      "checked 12.99",
      "1ms",
      "too dear at 12.99",
    ]);
  });

  it("bounds a large value's preview and the whole detail, whatever the step made (a 1 MB variable is named only)", async () => {
    const { details, result } = await run(`
  - set: { big: "{{ $pad('', 100000, 'x') }}", other: "{{ $pad('', 100000, 'y') }}" }
  - let: { big: "{{ $pad('', 1048576, 'x') }}" }
`);
    expect(result.outcome).toBe("finished");
    const [detail, variable] = details;
    expect(detail?.length).toBeLessThanOrEqual(DETAIL_MAX_CHARS);
    expect(detail).toMatch(/^big = "x{100,}…, other = "y+…$/);
    expect(variable).toBe("vars.big");
  });

  it("masks a secret inside a value before the preview is cut, so no part of it shows", async () => {
    // The secret straddles the preview's bound: cut first, its first characters would show.
    const before = "a".repeat(PREVIEW_MAX_CHARS - 10);
    const { details, events } = await run(
      `
  - set: { token: "${before}{{ secrets.key }} and {{ secrets.key }}" }
  - log: "{{ $pad('', 300, 'b') }}{{ secrets.key }}"
`,
      { key: SECRET },
    );
    expect(details[0]).toBe(`token = "${before}*** and …`);
    for (const detail of details) {
      expect(detail).not.toContain(SECRET.slice(0, 4));
    }
    expect(JSON.stringify(events)).not.toContain(SECRET);
  });

  it("cuts and masks in that order, one line, never inside a character", () => {
    const mask = (text: string) => text.split(SECRET).join("***");
    expect(stepDetail(`a\n\t b ${SECRET}`, mask)).toBe("a b ***");
    expect(stepDetail("#".repeat(10 * 1024), mask)).toHaveLength(DETAIL_MAX_CHARS);
    const emoji = "😀".repeat(PREVIEW_MAX_CHARS);
    const preview = previewOf(emoji, mask);
    expect(preview.length).toBeLessThanOrEqual(PREVIEW_MAX_CHARS);
    // No lone half of a surrogate pair before the ellipsis.
    expect(preview).toMatch(/😀…$/u);
    expect(previewOf(undefined, mask)).toBe("nothing");
  });

  it("names the loop's rounds and items, and the skill a call runs", async () => {
    const { events } = await run(`
  - id: loop
    repeat: { max: 5, until: "{{ vars.n = 2 }}", steps: [{ let: { n: "{{ $exists(vars.n) ? vars.n + 1 : 1 }}" } }] }
  - id: each
    for_each: { items: [1, 2, 3], steps: [{ log: "{{ vars.item }}" }] }
`);
    const finished = (id: string) =>
      events.find((e) => e.type === "step_finished" && e.step.id === id);
    expect(finished("loop")).toMatchObject({ detail: "2 rounds" });
    expect(finished("each")).toMatchObject({ detail: "3 items" });
  });
});
