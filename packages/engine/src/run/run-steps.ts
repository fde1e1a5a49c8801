import type { Step } from "../definition/types.js";
import { messageOf } from "../error-message.js";
import type { ResumeCursor } from "./checkpoint.js";
import type { Execution } from "./execution.js";
import { type Reentry, runStep, type StepOutcome } from "./run-step.js";
import { stepRef } from "./step-ref.js";
import type { StepError, StepRef } from "./types.js";

/**
 * How a list of steps ended. A failure names the innermost step that failed (`pages #2 › page`),
 * and says whether the skill asked for it (`fail`), which no retry of an outer block can change.
 */
export type StepsOutcome =
  | { status: "finished" }
  | { status: "failed"; error: StepError; step: StepRef; deliberate: boolean }
  | { status: "aborted"; step?: StepRef };

/**
 * Runs steps in order until one fails or the execution's signal aborts. With `resume`, from the
 * step its path names: a block there is entered again where the checkpoint was (Reentry), a plain
 * step runs from its start.
 */
export async function runSteps(
  steps: Step[],
  run: Execution,
  resume?: ResumeCursor,
): Promise<StepsOutcome> {
  const [from, ...inside] = resume?.path ?? [];
  for (let index = from?.index ?? 0; index < steps.length; index += 1) {
    const step = steps[index] as Step;
    // A loop of steps that never wait (let, set) would otherwise hold the event loop, and with
    // it the timers and messages that stop the run.
    await new Promise((resolve) => setImmediate(resolve));
    if (run.signal.aborted) return { status: "aborted" };
    const ref = stepRef(step, index, run.frame);
    // A block goes on inside; a parked `wait` goes on until its end.
    const reentry: Reentry | undefined =
      index === from?.index &&
      (inside.length > 0 || from.until !== undefined) &&
      resume !== undefined
        ? { level: from, inner: { path: inside, calls: resume.calls } }
        : undefined;
    if (reentry !== undefined) {
      // Begun and counted before the checkpoint: its inner steps write the boundaries.
      const outcome = await runStep(step, ref, run, reentry);
      const ended = settled(outcome, ref, run);
      if (ended !== undefined) return ended;
      continue;
    }
    await run.checkpoint(ref);
    if (run.pauseRequested()) {
      // A pause that could not be recorded leaves the run going; its worker stops it if it is
      // no longer its own.
      await run.pause({ reason: "requested", step: ref }, run.signal).catch(() => undefined);
      if (run.signal.aborted) return { status: "aborted", step: ref };
    }
    try {
      run.countStep();
    } catch (error) {
      const failure = { step: ref.label, message: messageOf(error) };
      return { status: "failed", error: failure, step: ref, deliberate: true };
    }
    const ended = settled(await runStep(step, ref, run), ref, run);
    if (ended !== undefined) return ended;
  }
  return { status: "finished" };
}

/** How the steps end after a step's outcome (undefined: they go on); its result is kept. */
function settled(outcome: StepOutcome, ref: StepRef, run: Execution): StepsOutcome | undefined {
  switch (outcome.status) {
    case "aborted":
      return { status: "aborted", step: ref };
    case "failed":
      return {
        status: "failed",
        error: outcome.error,
        step: outcome.step,
        deliberate: outcome.deliberate,
      };
    case "skipped":
      run.record(ref, null);
      return undefined;
    case "finished":
      run.record(ref, outcome.result);
      return undefined;
  }
}

/**
 * Thrown out of a block step (a loop, a call) whose inner step failed, so the block fails with
 * the inner step named.
 */
export class InnerStepFailed extends Error {
  override readonly name = "InnerStepFailed";

  constructor(
    readonly error: StepError,
    readonly step: StepRef,
    readonly deliberate: boolean,
  ) {
    super(error.step === null ? error.message : `${error.step}: ${error.message}`);
  }
}
