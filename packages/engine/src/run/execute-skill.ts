import type { Step } from "../definition/types.js";
import { messageOf } from "../error-message.js";
import { type Checkpoint, checkpointProblem, cursorOf, stepAt } from "./checkpoint.js";
import { createExecution, type Execution } from "./execution.js";
import { partialOutput, skillOutput } from "./output.js";
import { runSteps, type StepsOutcome } from "./run-steps.js";
import { maskedExecution } from "./secret-mask.js";
import { innerFrame, stepRef } from "./step-ref.js";
import type { ExecuteSkillOptions, ExecutionResult, StepError, StepRef } from "./types.js";

/**
 * Runs a skill's steps in order against `inputs`, reporting each event to `onEvent`. Resolves with
 * how it ended; a failing step or an abort is an outcome, never a thrown error. When the skill
 * declares `output`, the result's data is that map (as far as it can be evaluated, for a run that
 * did not finish). Secret values (`secrets`, inputs declared `secret: true`) are masked in
 * every event and in the result.
 */
export async function executeSkill(options: ExecuteSkillOptions): Promise<ExecutionResult> {
  const masked = maskedExecution(options);
  return masked.result(await executeUnmasked(masked.options));
}

async function executeUnmasked(options: ExecuteSkillOptions): Promise<ExecutionResult> {
  const run = createExecution(options);
  run.browser?.handleDialogs((dialog) => run.dialogs.answer(dialog));
  try {
    return await executeSteps(run, options.resume);
  } finally {
    // Dialogs after the run (while the browser closes) are accepted unlogged.
    run.browser?.handleDialogs(undefined);
    await run.network.close();
  }
}

async function executeSteps(run: Execution, resume?: Checkpoint): Promise<ExecutionResult> {
  const started = run.now();
  run.emit({ type: "run_started" });
  const outcome =
    resume === undefined ? await runSteps(run.definition.steps, run) : await goOn(run, resume);
  switch (outcome.status) {
    case "aborted":
      return aborted(run, started, outcome.step);
    case "failed":
      return failed(run, started, outcome.error, outcome.step);
    case "finished":
      break;
  }
  let data: Record<string, unknown>;
  try {
    data = await skillOutput(run);
  } catch (error) {
    return failed(run, started, { step: "output", message: messageOf(error) });
  }
  run.emit({ type: "run_finished", duration_ms: run.since(started) });
  return { outcome: "finished", data };
}

/**
 * A run going on from a checkpoint: its browser reopened as the checkpoint had it, its
 * `on_resume` steps (no checkpoint inside them), then its steps from the one the checkpoint names.
 */
async function goOn(run: Execution, checkpoint: Checkpoint): Promise<StepsOutcome> {
  const problem = checkpointProblem(checkpoint);
  const resumeRef =
    problem === null ? stepAt(checkpoint, run.definition, (id) => run.skill(id)) : undefined;
  if (resumeRef === undefined) {
    const why = problem ?? `step ${checkpoint.step} is not where it was in the skill`;
    const message = `cannot go on from the checkpoint: ${why}`;
    const first = stepRef(run.definition.steps[0] as Step, 0);
    return { status: "failed", error: { step: null, message }, step: first, deliberate: true };
  }
  run.emit({
    type: "log",
    step: resumeRef,
    level: "info",
    message: `going on from the checkpoint before step ${checkpoint.step}`,
  });
  if (checkpoint.browser !== undefined && run.browser !== undefined) {
    try {
      await run.browser.page();
    } catch (error) {
      const message = `the browser could not be restored: ${messageOf(error)}`;
      return {
        status: "failed",
        error: { step: null, message },
        step: resumeRef,
        deliberate: false,
      };
    }
  }
  const { on_resume } = run.definition;
  if (on_resume !== undefined) {
    const frame = { ...innerFrame(run.frame, "on_resume", { index: 0 }), checkpoints: false };
    const outcome = await runSteps(on_resume, run.within(run.signal, frame));
    if (outcome.status !== "finished") return outcome;
  }
  return runSteps(run.definition.steps, run, cursorOf(checkpoint));
}

async function failed(
  run: Execution,
  started: number,
  error: StepError,
  step?: StepRef,
): Promise<ExecutionResult> {
  const data = await partialOutput(run);
  run.emit({ type: "run_failed", duration_ms: run.since(started), error });
  return { outcome: "failed", data, error, ...(step === undefined ? {} : { step }) };
}

async function aborted(run: Execution, started: number, step?: StepRef): Promise<ExecutionResult> {
  const { reason } = run.signal;
  const where = step === undefined ? {} : { step };
  const data = await partialOutput(run);
  run.emit({ type: "run_aborted", duration_ms: run.since(started), ...where, reason });
  return { outcome: "aborted", data, ...where, reason };
}
