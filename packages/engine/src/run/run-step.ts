import { parseDuration } from "../definition/duration.js";
import type { Step } from "../definition/types.js";
import { messageOf } from "../error-message.js";
import { evaluateCondition, renderText, resolveValue } from "../expressions/evaluate.js";
import { DeliberateFailure } from "../steps/fail.js";
import { stepKindDefinition } from "../steps/registry.js";
import type { StepContext } from "../steps/step-context.js";
import type { StepKindDefinition } from "../steps/step-kind.js";
import { raceAbort, sleep, withTimeout } from "./abort.js";
import type { Execution } from "./execution.js";
import type { StepRef } from "./types.js";

/** How a step ended; a failure's message is the last attempt's. */
export type StepOutcome =
  | { status: "finished"; result: unknown }
  | { status: "skipped" }
  | { status: "failed"; message: string }
  | { status: "aborted" };

type AttemptOutcome =
  | { status: "finished"; result: unknown }
  | { status: "failed"; message: string; deliberate?: true }
  | { status: "aborted" };

/** Runs one step: its `if`, then up to `retry.attempts` attempts with `retry.backoff` between. */
export async function runStep(step: Step, ref: StepRef, run: Execution): Promise<StepOutcome> {
  if (step.if !== undefined) {
    try {
      const proceed = await raceAbort(evaluateCondition(step.if, run.scope()), run.signal);
      if (!proceed) {
        run.emit({ type: "step_skipped", step: ref });
        return { status: "skipped" };
      }
    } catch (error) {
      return run.signal.aborted
        ? { status: "aborted" }
        : { status: "failed", message: messageOf(error) };
    }
  }
  const kind = stepKindDefinition(ref.kind);
  // Retrying cannot make a missing browser appear.
  const attempts = kind.browser && run.browser === undefined ? 1 : (step.retry?.attempts ?? 1);
  const backoff = step.retry?.backoff === undefined ? 0 : parseDuration(step.retry.backoff);
  for (let attempt = 1; ; attempt += 1) {
    run.emit({ type: "step_started", step: ref, attempt });
    const started = run.now();
    const outcome = await runAttempt(step, ref, kind, run);
    if (outcome.status === "aborted") return outcome;
    const duration_ms = run.since(started);
    if (outcome.status === "finished") {
      run.emit({ type: "step_finished", step: ref, attempt, duration_ms });
      return outcome;
    }
    const will_retry = attempt < attempts && !outcome.deliberate;
    const { message } = outcome;
    run.emit({ type: "step_failed", step: ref, attempt, duration_ms, message, will_retry });
    if (!will_retry) return outcome;
    try {
      await sleep(backoff, run.signal);
    } catch {
      return { status: "aborted" };
    }
  }
}

/** One attempt, bounded by the step's `timeout` and cut short when the run aborts. */
async function runAttempt(
  step: Step,
  ref: StepRef,
  kind: StepKindDefinition<unknown>,
  run: Execution,
): Promise<AttemptOutcome> {
  const timeoutMs = step.timeout === undefined ? undefined : parseDuration(step.timeout);
  let explained: (() => string) | undefined;
  const timed = withTimeout(
    run.signal,
    timeoutMs,
    () => new Error(explained?.() ?? `step timed out after ${step.timeout}`),
  );
  // A runner cut short by raceAbort may still be going; what it reports afterwards is dropped.
  let open = true;
  const context: StepContext = {
    step: ref,
    signal: timed.signal,
    limits: run.limits,
    network: run.network,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(run.browser === undefined ? {} : { browser: run.browser }),
    resolve: (value) => resolveValue(value, run.scope()),
    render: (text) => renderText(text, run.scope()),
    save(changes) {
      if (open) run.save(ref, changes);
    },
    explainTimeout(describe) {
      explained = describe;
    },
    log(level, message) {
      if (open) run.emit({ type: "log", step: ref, level, message });
    },
  };
  const action = (step as unknown as Record<string, unknown>)[ref.kind];
  try {
    return { status: "finished", result: await raceAbort(kind.run(action, context), timed.signal) };
  } catch (error) {
    if (run.signal.aborted) return { status: "aborted" };
    if (error instanceof DeliberateFailure) {
      return { status: "failed", message: error.message, deliberate: true };
    }
    return { status: "failed", message: messageOf(timed.timedOut() ? timed.signal.reason : error) };
  } finally {
    open = false;
    timed.dispose();
  }
}
