import type { StepContext } from "../steps/step-context.js";
import type { RunFiles } from "./run-files.js";

/** The run's files; a runner that keeps none fails the steps that need them with this message. */
export function filesOf(context: StepContext): RunFiles {
  if (context.files === undefined) {
    throw new Error(`files are not kept by this runner (step kind "${context.step.kind}")`);
  }
  return context.files;
}
