import { messageOf } from "../error-message.js";
import { createExecution, type Execution } from "./execution.js";
import { partialOutput, skillOutput } from "./output.js";
import { runSteps } from "./run-steps.js";
import { maskedExecution } from "./secret-mask.js";
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
    return await executeSteps(run);
  } finally {
    // Dialogs after the run (while the browser closes) are accepted unlogged.
    run.browser?.handleDialogs(undefined);
    await run.network.close();
  }
}

async function executeSteps(run: Execution): Promise<ExecutionResult> {
  const started = run.now();
  run.emit({ type: "run_started" });
  const outcome = await runSteps(run.definition.steps, run);
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
