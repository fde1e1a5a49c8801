import { failureScreenshot } from "../browser/failure-screenshot.js";
import { parseDuration } from "../definition/duration.js";
import type { SkillDefinition, Step } from "../definition/types.js";
import { messageOf } from "../error-message.js";
import { evaluateCondition, renderText, resolveValue } from "../expressions/evaluate.js";
import { DeliberateFailure } from "../steps/fail.js";
import { stepKindDefinition } from "../steps/registry.js";
import type { StepContext } from "../steps/step-context.js";
import { mayHaveEffects, type StepKindDefinition } from "../steps/step-kind.js";
import { raceAbort, sleep, type TimedSignal, withTimeout } from "./abort.js";
import type { CheckpointLevel, ResumeCursor } from "./checkpoint.js";
import type { Execution } from "./execution.js";
import { skillOutput } from "./output.js";
import { InnerStepFailed, runSteps, type StepsOutcome } from "./run-steps.js";
import { previewOf, stepDetail } from "./step-detail.js";
import { innerFrame, stepLabel } from "./step-ref.js";
import type { StepError, StepRef, StepSpan } from "./types.js";

/**
 * How a step ended. A failure's `error` names the step that failed, an inner one for a block;
 * `deliberate` when the skill asked for it (`fail`), which no retry can change.
 */
export type StepOutcome =
  | { status: "finished"; result: unknown }
  | { status: "skipped" }
  | { status: "failed"; error: StepError; step: StepRef; deliberate: boolean }
  | { status: "aborted" };

/**
 * A block step a resumed run goes back into (see runSteps): the checkpoint's level for it (a
 * loop's round and items) and where to go on inside.
 */
export interface Reentry {
  level: CheckpointLevel;
  inner: ResumeCursor;
}

/** `detail`: what the attempt said it acts on or made (StepContext.detail), when it said it. */
type AttemptOutcome =
  | { status: "finished"; result: unknown; detail?: string }
  | {
      status: "failed";
      message: string;
      deliberate: boolean;
      inner?: InnerStepFailed;
      detail?: string;
    }
  | { status: "aborted" };

/**
 * Runs one step: its `if`, then up to `retry.attempts` attempts with `retry.backoff` between. An
 * `optional` step that fails is logged and finishes with `{ error }` as its result.
 */
export async function runStep(
  step: Step,
  ref: StepRef,
  run: Execution,
  reentry?: Reentry,
): Promise<StepOutcome> {
  // A block entered again held its `if` when it began.
  if (step.if !== undefined && reentry === undefined) {
    try {
      const proceed = await raceAbort(
        evaluateCondition(step.if, run.scope(), "if", run.hooks),
        run.signal,
      );
      if (!proceed) {
        run.emit({ type: "step_skipped", step: ref });
        return { status: "skipped" };
      }
    } catch (error) {
      if (run.signal.aborted) return { status: "aborted" };
      return failed(step, ref, run, {
        status: "failed",
        message: messageOf(error),
        deliberate: false,
      });
    }
  }
  const kind = stepKindDefinition(ref.kind);
  const effects = mayHaveEffects(kind, actionOf(step, ref));
  // Retrying cannot make a missing browser appear.
  const attempts = kind.browser && run.browser === undefined ? 1 : (step.retry?.attempts ?? 1);
  const backoff = step.retry?.backoff === undefined ? 0 : parseDuration(step.retry.backoff);
  for (let attempt = 1; ; attempt += 1) {
    run.emit({ type: "step_started", step: ref, attempt });
    const started = run.now();
    const span = run.traceStep?.(ref, attempt);
    const outcome =
      (effects && (await recordEffects(ref, run))) ||
      // A retry begins the block afresh.
      (await runAttempt(step, ref, kind, run, attempt === 1 ? reentry : undefined, span));
    span?.end(outcome.status === "failed" ? outcome.message : undefined);
    if (outcome.status === "aborted") return outcome;
    const duration_ms = run.since(started);
    const detail = outcome.detail === undefined ? {} : { detail: outcome.detail };
    if (outcome.status === "finished") {
      run.emit({ type: "step_finished", step: ref, attempt, duration_ms, ...detail });
      return outcome;
    }
    const will_retry = attempt < attempts && !outcome.deliberate;
    const { message } = outcome;
    // The page as the browser step failed, once it will not be tried again.
    const file = kind.browser && !will_retry ? await failureScreenshot(ref, run) : undefined;
    run.emit({
      type: "step_failed",
      step: ref,
      attempt,
      duration_ms,
      message,
      will_retry,
      ...(file !== undefined && { file }),
      ...detail,
    });
    if (!will_retry) return failed(step, ref, run, outcome);
    try {
      await sleep(backoff, run.signal);
    } catch {
      return { status: "aborted" };
    }
  }
}

/** The step's failure: the run's, or for an `optional` step a result the run goes on with. */
function failed(
  step: Step,
  ref: StepRef,
  run: Execution,
  outcome: Extract<AttemptOutcome, { status: "failed" }>,
): StepOutcome {
  if (step.optional === true) {
    const message = `optional step failed, the run goes on: ${outcome.message}`;
    run.emit({ type: "log", step: ref, level: "warn", message });
    return { status: "finished", result: { error: outcome.message } };
  }
  const { inner } = outcome;
  return {
    status: "failed",
    error: inner?.error ?? { step: ref.label, message: outcome.message },
    step: inner?.step ?? ref,
    deliberate: outcome.deliberate,
  };
}

/** The step's action as written (templates unresolved). */
function actionOf(step: Step, ref: StepRef): unknown {
  return (step as unknown as Record<string, unknown>)[ref.kind];
}

/**
 * Waits until it is recorded that the run may have had effects, before a step that may have them
 * runs; null then. A step whose effects could not be recorded does not run, and no retry helps.
 */
async function recordEffects(ref: StepRef, run: Execution): Promise<AttemptOutcome | null> {
  try {
    await raceAbort(run.beforeEffects(ref), run.signal);
    return null;
  } catch (error) {
    if (run.signal.aborted) return { status: "aborted" };
    const message = `could not record that this step may have effects, so it did not run: ${messageOf(error)}`;
    return { status: "failed", message, deliberate: true };
  }
}

/** One attempt, bounded by the step's `timeout` and cut short when the run aborts. */
async function runAttempt(
  step: Step,
  ref: StepRef,
  kind: StepKindDefinition<unknown>,
  run: Execution,
  reentry: Reentry | undefined,
  span: StepSpan | undefined,
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
  let detail: string | undefined;
  const leave = run.dialogs.enter(ref, step, run.definition.on_dialog, run.callDepth);
  const save = (changes: Record<string, unknown>) => {
    if (open) run.save(ref, changes);
  };
  const setVars = (changes: Record<string, unknown>) => {
    if (open) run.setVars(changes);
  };
  const context: StepContext = {
    step: ref,
    signal: timed.signal,
    ...(span && { traceparent: span.traceparent }),
    limits: run.limits,
    network: run.network,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(run.browser === undefined ? {} : { browser: run.browser }),
    ...(run.files === undefined ? {} : { files: run.files }),
    resolve: (value) => resolveValue(value, run.scope(), run.hooks),
    render: (text) => renderText(text, run.scope(), run.hooks),
    save,
    setVars,
    saveAs(target, value) {
      if (target.startsWith("vars.")) setVars({ [target.slice("vars.".length)]: value });
      else save({ [target]: value });
    },
    explainTimeout(describe) {
      explained = describe;
    },
    log(level, message) {
      if (open) run.emit({ type: "log", step: ref, level, message });
    },
    detail(text) {
      if (open) detail = stepDetail(text, run.maskText);
    },
    preview: (value) => previewOf(value, run.maskText),
    ask: (question) => run.pause({ reason: "ask", step: ref, ...question }, timed.signal),
    callDepth: run.callDepth,
    skill: (id) => run.skill(id),
    holds: (condition) => evaluateCondition(condition, run.scope(), "until", run.hooks),
    ...(reentry === undefined ? {} : { resumed: reentry.level }),
    waiting: (until) => run.waiting(ref, until),
    async runSteps(steps, iteration, items) {
      const name = `${stepLabel(step, ref.index)}${iteration === undefined ? "" : ` #${iteration}`}`;
      const level = { index: ref.index, round: iteration, ...(items && { items }) };
      const inner = run.within(timed.signal, innerFrame(run.frame, name, level));
      // The round the checkpoint was in goes on where it was; the rounds after start afresh.
      let resume: ResumeCursor | undefined;
      if (reentry !== undefined && iteration === reentry.level.round) {
        resume = reentry.inner;
        reentry = undefined;
      }
      settle(await runSteps(steps, inner, resume), timed);
    },
    async runSkill(definition: SkillDefinition, inputs) {
      const frame = innerFrame(run.frame, step.id ?? definition.id, { index: ref.index });
      const [restored, ...deeper] = reentry?.inner.calls ?? [];
      const resume = reentry && { path: reentry.inner.path, calls: deeper };
      const called = run.calling(definition, inputs, timed.signal, frame, restored);
      settle(await runSteps(definition.steps, called, resume), timed);
      return skillOutput(called);
    },
  };
  try {
    const result = await raceAbort(kind.run(actionOf(step, ref), context), timed.signal);
    return { status: "finished", result, ...(detail !== undefined && { detail }) };
  } catch (error) {
    if (run.signal.aborted) return { status: "aborted" };
    const said = detail === undefined ? {} : { detail };
    if (error instanceof InnerStepFailed && !timed.signal.aborted) {
      return {
        status: "failed",
        message: error.message,
        deliberate: error.deliberate,
        inner: error,
        ...said,
      };
    }
    if (error instanceof DeliberateFailure) {
      return { status: "failed", message: error.message, deliberate: true, ...said };
    }
    const message = messageOf(timed.timedOut() ? timed.signal.reason : error);
    return { status: "failed", message, deliberate: false, ...said };
  } finally {
    open = false;
    leave();
    timed.dispose();
  }
}

/** Passes a block's failure or abort on to the block step as an error. */
function settle(outcome: StepsOutcome, timed: TimedSignal): void {
  if (outcome.status === "failed") {
    throw new InnerStepFailed(outcome.error, outcome.step, outcome.deliberate);
  }
  if (outcome.status === "aborted") throw timed.signal.reason;
}
