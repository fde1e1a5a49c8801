import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { BrowserAccess } from "../browser/browser-access.js";
import { parseSkillDefinition } from "../definition/parse.js";
import type { SkillDefinition } from "../definition/types.js";
import { executeSkill } from "./execute-skill.js";
import type { EngineEvent, ExecuteSkillOptions } from "./types.js";

function skill(steps: string, inputs = ""): SkillDefinition {
  return parseSkillDefinition(`id: s\nname: S\n${inputs}steps:\n${steps}`, "s.yaml");
}

async function execute(
  definition: SkillDefinition,
  options: Partial<Omit<ExecuteSkillOptions, "definition" | "onEvent">> = {},
) {
  const events: EngineEvent[] = [];
  const started = Date.now();
  const result = await executeSkill({
    definition,
    inputs: {},
    run: { id: "run_1", skill_id: "s" },
    signal: new AbortController().signal,
    onEvent: (event) => events.push(event),
    ...options,
  });
  return { result, events, elapsed: Date.now() - started };
}

/** The `inputs:` line of a skill that reads inputs.name. */
const NAME_INPUT = "inputs: [{ json_key: name, data_type: string }]\n";

const typesOf = (events: EngineEvent[]) => events.map((event) => event.type);

/**
 * A browser whose page is what `page` gives, for the engine's own logic (retries, timeouts,
 * aborts); the browser steps themselves are tested in real Chromium under browser/.
 */
function fakeBrowser(page: () => Promise<Partial<Page>>): BrowserAccess {
  return {
    page: page as () => Promise<Page>,
    started: () => true,
    downloadsDir: () => Promise.reject(new Error("no downloads here")),
    nextScreenshotNumber: () => 1,
    handleDialogs: () => {},
    switchTab: () => Promise.reject(new Error("no tabs here")),
    closeTab: () => Promise.reject(new Error("no tabs here")),
    videoOffsetMs: () => undefined,
    snapshot: () => Promise.resolve(null),
  };
}

/** Aborts with `reason` after `ms`. */
function abortAfter(ms: number, reason: unknown = "cancelled"): AbortSignal {
  const controller = new AbortController();
  setTimeout(() => controller.abort(reason), ms);
  return controller.signal;
}

describe("executeSkill", () => {
  it("runs set, log and wait in order, reporting each event", async () => {
    const definition = skill(
      `  - id: greet
    set: { greeting: "Hello, {{ inputs.name }}!", n: "{{ 1 + 1 }}" }
  - log: "{{ data.greeting }}"
  - log: { message: "n is {{ data.n }}", level: warn }
  - wait: 30ms
`,
      NAME_INPUT,
    );
    const { result, events } = await execute(definition, { inputs: { name: "Ada" } });
    expect(result).toEqual({ outcome: "finished", data: { greeting: "Hello, Ada!", n: 2 } });
    expect(typesOf(events)).toEqual([
      "run_started",
      ...["step_started", "data_updated", "step_finished"],
      ...["step_started", "log", "step_finished"],
      ...["step_started", "log", "step_finished"],
      ...["step_started", "step_finished"],
      "run_finished",
    ]);
    const greet = { index: 0, id: "greet", kind: "set", label: "greet" };
    expect(events[1]).toMatchObject({ type: "step_started", step: greet, attempt: 1 });
    expect(events[2]).toMatchObject({
      type: "data_updated",
      step: greet,
      changes: { greeting: "Hello, Ada!", n: 2 },
    });
    expect(events[5]).toMatchObject({
      type: "log",
      step: { index: 1, kind: "log", label: "step 2 (log)" },
      level: "info",
      message: "Hello, Ada!",
    });
    expect(events[8]).toMatchObject({ type: "log", level: "warn", message: "n is 2" });
    const waited = events[11];
    expect(waited?.type === "step_finished" && waited.duration_ms).toBeGreaterThanOrEqual(25);
    const finished = events.at(-1);
    expect(finished?.type === "run_finished" && finished.duration_ms).toBeGreaterThanOrEqual(25);
    for (const event of events) expect(new Date(event.at).toISOString()).toBe(event.at);
    for (const event of events) {
      if ("duration_ms" in event) expect(Number.isInteger(event.duration_ms)).toBe(true);
    }
  });

  it("stamps events with the clock it is given", async () => {
    const { events } = await execute(skill("  - log: hi\n"), { now: () => 1_700_000_000_000 });
    expect(new Set(events.map((event) => event.at))).toEqual(new Set(["2023-11-14T22:13:20.000Z"]));
    expect(events.at(-1)).toMatchObject({ type: "run_finished", duration_ms: 0 });
  });

  it("keeps each finished step's result as steps.<id>, and null for a skipped one", async () => {
    const definition = skill(`  - id: a
    set: { x: 1 }
  - id: l
    log: "hello"
  - id: w
    wait: 5ms
  - id: skipped
    if: "false"
    log: never
  - set:
      a: "{{ steps.a }}"
      l: "{{ steps.l }}"
      w: "{{ steps.w }}"
      skipped: "{{ steps.skipped = null }}"
      unnamed: "{{ $count($keys(steps)) }}"
`);
    const { result } = await execute(definition);
    expect(result.data).toEqual({ x: 1, a: { x: 1 }, l: "hello", w: 5, skipped: true, unnamed: 4 });
  });

  it("skips a step whose if is falsy, bare or in braces, and runs one whose if is true", async () => {
    const definition = skill(`  - set: { n: 2 }
  - if: data.n > 5
    log: bare false
  - if: "{{ data.n > 1 }}"
    log: braced true
  - if: "data.missing"
    log: missing
  - if: "{{ data.n }}"
    log: number true
`);
    const { result, events } = await execute(definition);
    expect(result.outcome).toBe("finished");
    const skipped = events.filter((event) => event.type === "step_skipped");
    expect(skipped.map((event) => event.step.index)).toEqual([1, 3]);
    const logs = events.flatMap((event) => (event.type === "log" ? [event.message] : []));
    expect(logs).toEqual(["braced true", "number true"]);
    // A skipped step is never started.
    const started = events.flatMap((event) =>
      event.type === "step_started" ? [event.step.index] : [],
    );
    expect(started).toEqual([0, 2, 4]);
  });

  it("fails on a step's error with its label, keeping the data so far and stopping there", async () => {
    const definition = skill(
      `  - set: { name: "{{ inputs.name }}" }
  - set: { broken: "{{ inputs.name + 1 }}" }
  - log: never reached
`,
      NAME_INPUT,
    );
    const { result, events } = await execute(definition, { inputs: { name: "Ada" } });
    const message =
      'cannot evaluate {{ inputs.name + 1 }}: The left side of the "+" operator must evaluate to a number';
    expect(result).toEqual({
      outcome: "failed",
      data: { name: "Ada" },
      error: { step: "step 2 (set)", message },
      step: { index: 1, kind: "set", label: "step 2 (set)" },
    });
    expect(typesOf(events).slice(-3)).toEqual(["step_started", "step_failed", "run_failed"]);
    expect(events.at(-2)).toMatchObject({
      type: "step_failed",
      step: { index: 1, label: "step 2 (set)" },
      attempt: 1,
      message,
      will_retry: false,
    });
    expect(events.at(-1)).toMatchObject({
      type: "run_failed",
      error: { step: "step 2 (set)", message },
    });
  });

  it("labels a failed step by its id, and fails on an if that cannot be evaluated", async () => {
    const definition = skill("  - id: pause\n    if: inputs.name + 1\n    wait: 1s\n", NAME_INPUT);
    const { result, events } = await execute(definition, { inputs: { name: "Ada" } });
    expect(result).toMatchObject({
      outcome: "failed",
      error: {
        step: "pause",
        message:
          'cannot evaluate {{ inputs.name + 1 }}: The left side of the "+" operator must evaluate to a number',
      },
    });
    expect(typesOf(events)).toEqual(["run_started", "run_failed"]);
  });

  it("retries a failing step after its backoff, counting attempts", async () => {
    let calls = 0;
    const browser = fakeBrowser(async () => {
      calls += 1;
      if (calls < 3) throw new Error(`flaky ${calls}`);
      return { goto: async () => null, url: () => "https://example.test/loaded" };
    });
    const definition = skill(`  - id: open
    goto: https://example.test/
    retry: { attempts: 3, backoff: 50ms }
  - set: { loaded: "{{ steps.open.url }}" }
`);
    const { result, events, elapsed } = await execute(definition, { browser });
    expect(result).toEqual({
      outcome: "finished",
      data: { loaded: "https://example.test/loaded" },
    });
    expect(calls).toBe(3);
    expect(elapsed).toBeGreaterThanOrEqual(95);
    const attempts = events.flatMap((event) =>
      event.type === "step_failed" ||
      event.type === "step_finished" ||
      event.type === "step_started"
        ? [`${event.type} ${event.attempt}`]
        : [],
    );
    expect(attempts.slice(0, 6)).toEqual([
      "step_started 1",
      "step_failed 1",
      "step_started 2",
      "step_failed 2",
      "step_started 3",
      "step_finished 3",
    ]);
    expect(events.filter((event) => event.type === "step_failed")).toMatchObject([
      { message: "flaky 1", will_retry: true },
      { message: "flaky 2", will_retry: true },
    ]);
  });

  it("fails with the last attempt's message when every attempt fails", async () => {
    let calls = 0;
    const browser = fakeBrowser(async () => {
      calls += 1;
      throw new Error(`no button (${calls})`);
    });
    const definition = skill('  - click: { selector: "#go" }\n    retry: { attempts: 2 }\n');
    const { result, events } = await execute(definition, { browser });
    expect(result).toMatchObject({
      outcome: "failed",
      error: { step: "step 1 (click)", message: "no button (2)" },
    });
    expect(events.filter((event) => event.type === "step_failed")).toMatchObject([
      { attempt: 1, will_retry: true },
      { attempt: 2, will_retry: false },
    ]);
  });

  it("fails an attempt that outlasts the step's timeout, even if the step ignores its signal", async () => {
    const browser = fakeBrowser(() => new Promise(() => {}));
    const definition = skill(`  - wait: 10s
    timeout: 50ms
    retry: { attempts: 2 }
`);
    const first = await execute(definition);
    expect(first.result).toMatchObject({
      outcome: "failed",
      error: { step: "step 1 (wait)", message: "step timed out after 50ms" },
    });
    expect(first.events.filter((event) => event.type === "step_failed")).toHaveLength(2);
    expect(first.elapsed).toBeLessThan(1000);
    const stuck = skill('  - wait_for: { selector: "#x" }\n    timeout: 50ms\n');
    const second = await execute(stuck, { browser });
    expect(second.result).toMatchObject({ error: { message: "step timed out after 50ms" } });
    expect(second.elapsed).toBeLessThan(1000);
  });

  it("fails at a browser step when no browser runner is given, without retrying", async () => {
    const definition = skill(`  - log: before
  - goto: https://example.test/
    retry: { attempts: 3, backoff: 1s }
`);
    const { result, events, elapsed } = await execute(definition);
    expect(result).toEqual({
      outcome: "failed",
      data: {},
      error: {
        step: "step 2 (goto)",
        message: 'browser steps are not available in this runner yet (step kind "goto")',
      },
      step: { index: 1, kind: "goto", label: "step 2 (goto)" },
    });
    expect(events.filter((event) => event.type === "step_failed")).toHaveLength(1);
    expect(elapsed).toBeLessThan(500);
  });

  it("resolves a browser step's templates before it drives the page", async () => {
    const seen: string[] = [];
    const browser = fakeBrowser(async () => ({
      goto: async (url: string) => {
        seen.push(url);
        return null;
      },
      url: () => seen.at(-1) ?? "",
    }));
    const definition = skill(
      '  - id: open\n    goto: "{{ inputs.url }}"\n',
      "inputs: [{ json_key: url, data_type: string }]\n",
    );
    const { result } = await execute(definition, { browser, inputs: { url: "https://a.test/" } });
    expect(seen).toEqual(["https://a.test/"]);
    expect(result).toEqual({ outcome: "finished", data: {} });
  });
});

describe("aborting a run", () => {
  it("during a wait returns at once, with the reason and the step, and no failure", async () => {
    const definition = skill("  - log: first\n  - id: nap\n    wait: 10s\n");
    const { result, events, elapsed } = await execute(definition, { signal: abortAfter(50) });
    expect(elapsed).toBeLessThan(1000);
    expect(result).toEqual({
      outcome: "aborted",
      data: {},
      step: { index: 1, id: "nap", kind: "wait", label: "nap" },
      reason: "cancelled",
    });
    expect(typesOf(events)).not.toContain("step_failed");
    expect(events.at(-1)).toMatchObject({
      type: "run_aborted",
      step: { label: "nap" },
      reason: "cancelled",
    });
  });

  it("is never retried, even when the step has retries left", async () => {
    const definition = skill("  - wait: 10s\n    retry: { attempts: 3 }\n");
    const { result, events, elapsed } = await execute(definition, { signal: abortAfter(30) });
    expect(result.outcome).toBe("aborted");
    expect(events.filter((event) => event.type === "step_started")).toHaveLength(1);
    expect(elapsed).toBeLessThan(1000);
  });

  it("during a retry's backoff returns at once", async () => {
    const browser = fakeBrowser(async () => {
      throw new Error("not yet");
    });
    const definition = skill(
      "  - click: { selector: a }\n    retry: { attempts: 3, backoff: 10s }\n",
    );
    const { result, events, elapsed } = await execute(definition, {
      browser,
      signal: abortAfter(50),
    });
    expect(elapsed).toBeLessThan(1000);
    expect(result).toMatchObject({ outcome: "aborted", step: { label: "step 1 (click)" } });
    expect(typesOf(events)).toEqual(["run_started", "step_started", "step_failed", "run_aborted"]);
  });

  it("between steps stops before the next one, naming no step", async () => {
    const controller = new AbortController();
    const events: EngineEvent[] = [];
    const result = await executeSkill({
      definition: skill("  - set: { a: 1 }\n  - log: never\n"),
      inputs: {},
      run: { id: "run_1", skill_id: "s" },
      signal: controller.signal,
      onEvent: (event) => {
        events.push(event);
        if (event.type === "step_finished") controller.abort("shutdown");
      },
    });
    expect(result).toEqual({ outcome: "aborted", data: { a: 1 }, reason: "shutdown" });
    expect(events.at(-1)).toMatchObject({ type: "run_aborted", reason: "shutdown" });
    expect(events.at(-1)).not.toHaveProperty("step");
  });

  it("before the start runs no step", async () => {
    const controller = new AbortController();
    controller.abort("too late");
    const { result, events } = await execute(skill("  - log: never\n"), {
      signal: controller.signal,
    });
    expect(result).toEqual({ outcome: "aborted", data: {}, reason: "too late" });
    expect(typesOf(events)).toEqual(["run_started", "run_aborted"]);
  });

  it("drops what a step that ignores its signal reports after the abort", async () => {
    // The element's text arrives only when the test lets it, after the run has ended; the step
    // then saves it regardless.
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reportedLate = () => {};
    const lateReports = new Promise<void>((resolve) => {
      reportedLate = resolve;
    });
    const element = {
      waitFor: async () => undefined,
      // What extract reads the matches with, in one call to the page.
      evaluateAll: async () => {
        await released;
        // The step's save follows in the microtasks after this; a macrotask runs after them.
        setTimeout(reportedLate, 0);
        return ["too late"];
      },
    };
    const browser = fakeBrowser(async () => ({
      locator: () => ({ first: () => element }) as unknown as ReturnType<Page["locator"]>,
    }));
    const steps = '  - extract: { selector: "#x", save_as: late }\n';
    // Ends although the step has not returned: the run does not wait for a step past its abort.
    const { result, events } = await execute(skill(steps), {
      browser,
      signal: abortAfter(20),
    });
    release();
    await lateReports;
    expect(result).toMatchObject({ outcome: "aborted", data: {} });
    expect(events.at(-1)?.type).toBe("run_aborted");
    expect(events.filter((event) => event.type === "log")).toEqual([]);
  });
});
