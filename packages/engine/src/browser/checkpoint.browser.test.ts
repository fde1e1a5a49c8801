import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSkillDefinition } from "../definition/parse.js";
import { LOCAL_TEST_NETWORK } from "../network/test-support/local-network.js";
import type { Checkpoint } from "../run/checkpoint.js";
import { executeSkill } from "../run/execute-skill.js";
import type { EngineEvent, ExecuteSkillOptions } from "../run/types.js";
import { type FixtureSite, startFixtureSite } from "./test-support/fixture-site.js";
import { testBrowser } from "./test-support/test-browser.js";

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(async () => {
  await site?.close();
});

const definition = parseSkillDefinition(
  `id: s
name: S
inputs: [{ json_key: base, data_type: string }]
steps:
  - goto: "{{ inputs.base }}/remember"
  - fill: { selector: "#note", value: kept across browsers }
  - click: { selector: "#stored" }
  - id: second
    goto: "{{ inputs.base }}/remember?again"
  - id: stored
    timeout: 2s
    extract: { selector: "#stored" }
  - id: cookie
    extract: { selector: "#cookie" }
  - set: { stored: "{{ steps.stored }}", cookie: "{{ steps.cookie }}" }`,
  "s.yaml",
);

/** Runs the skill in a browser of its own, started from `restore` when given. */
async function execute(options: Partial<ExecuteSkillOptions>) {
  const test = await testBrowser({
    video: false,
    ...(options.resume?.browser && { restore: options.resume.browser }),
  });
  const checkpoints: Checkpoint[] = [];
  const events: EngineEvent[] = [];
  try {
    const result = await executeSkill({
      definition,
      inputs: { base: site.base },
      run: { id: "run_1", skill_id: "s" },
      signal: new AbortController().signal,
      onEvent: (event) => events.push(event),
      onCheckpoint: (checkpoint) => checkpoints.push(structuredClone(checkpoint)),
      browser: test.browser.access,
      network: LOCAL_TEST_NETWORK,
      ...options,
    });
    return { result, checkpoints, events };
  } finally {
    await test.dispose();
  }
}

describe("a browser run's checkpoint", { timeout: 60_000 }, () => {
  it("keeps the tabs and the storage, and a new browser goes on from them", async () => {
    const first = await execute({});
    expect(first.result).toMatchObject({
      outcome: "finished",
      data: { stored: "kept across browsers", cookie: "seen=yes" },
    });
    const before = first.checkpoints.find((checkpoint) => checkpoint.step === "stored");
    expect(before?.browser?.tabs).toEqual([`${site.base}/remember?again`]);
    expect(before?.browser?.origins).toEqual([
      { origin: site.base, localStorage: [{ name: "note", value: "kept across browsers" }] },
    ]);
    expect(before?.browser?.cookies.map((cookie) => cookie.name)).toEqual(["seen"]);
    // The first checkpoint comes before the browser opened: it keeps none.
    expect(first.checkpoints[0]?.browser).toBeUndefined();

    // Another browser, from the checkpoint: the page reads the note and the cookie back.
    const resumed = await execute({ resume: before as Checkpoint });
    expect(resumed.result).toMatchObject({
      outcome: "finished",
      data: { stored: "kept across browsers", cookie: "seen=yes" },
    });
    const begun = resumed.events.flatMap((event) =>
      event.type === "step_started" ? [event.step.label] : [],
    );
    expect(begun).toEqual(["stored", "cookie", "step 7 (set)"]);
  });

  it("without it, a new browser starts blank: the restore is what brings the page back", async () => {
    const first = await execute({});
    const checkpoint = first.checkpoints.find((at) => at.step === "stored") as Checkpoint;
    const { browser: _dropped, ...withoutBrowser } = checkpoint;
    const resumed = await execute({ resume: withoutBrowser });
    expect(resumed.result).toMatchObject({ outcome: "failed", error: { step: "stored" } });
  });
});
