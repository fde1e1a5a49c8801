import { createExecution, type Execution } from "./execution.js";
import { runStep } from "./run-step.js";
import { stepRef } from "./step-ref.js";
import type { ExecuteSkillOptions, ExecutionResult, StepError, StepRef } from "./types.js";

/**
 * Runs a skill's steps in order against `inputs`, reporting each event to `onEvent`. Resolves with
 * how it ended; a failing step or an abort is an outcome, never a thrown error.
 */
export async function executeSkill(options: ExecuteSkillOptions): Promise<ExecutionResult> {
  const run = createExecution(options);
  try {
    return await executeSteps(run, options);
  } finally {
    await run.network.close();
  }
}

async function executeSteps(
  run: Execution,
  options: ExecuteSkillOptions,
): Promise<ExecutionResult> {
  const started = run.now();
  run.emit({ type: "run_started" });
  for (const [index, step] of options.definition.steps.entries()) {
    if (run.signal.aborted) return aborted(run, started);
    const ref = stepRef(step, index);
    const outcome = await runStep(step, ref, run);
    switch (outcome.status) {
      case "aborted":
        return aborted(run, started, ref);
      case "failed": {
        const error: StepError = { step: ref.label, message: outcome.message };
        run.emit({ type: "run_failed", duration_ms: run.since(started), error });
        return { outcome: "failed", data: run.data, error, step: ref };
      }
      case "skipped":
        run.record(ref, null);
        break;
      case "finished":
        run.record(ref, outcome.result);
    }
  }
  run.emit({ type: "run_finished", duration_ms: run.since(started) });
  return { outcome: "finished", data: run.data };
}

function aborted(run: Execution, started: number, step?: StepRef): ExecutionResult {
  const { reason } = run.signal;
  const where = step === undefined ? {} : { step };
  run.emit({ type: "run_aborted", duration_ms: run.since(started), ...where, reason });
  return { outcome: "aborted", data: run.data, ...where, reason };
}
