import type { Step } from "../definition/types.js";
import { messageOf } from "../error-message.js";
import type { Execution } from "./execution.js";
import { runStep } from "./run-step.js";
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

/** Runs steps in order until one fails or the execution's signal aborts. */
export async function runSteps(steps: Step[], run: Execution): Promise<StepsOutcome> {
  for (const [index, step] of steps.entries()) {
    // A loop of steps that never wait (let, set) would otherwise hold the event loop, and with
    // it the timers and messages that stop the run.
    await new Promise((resolve) => setImmediate(resolve));
    if (run.signal.aborted) return { status: "aborted" };
    const ref = stepRef(step, index, run.frame);
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
    const outcome = await runStep(step, ref, run);
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
        break;
      case "finished":
        run.record(ref, outcome.result);
    }
  }
  return { status: "finished" };
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
