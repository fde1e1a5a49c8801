import type { Step } from "../definition/types.js";
import { stepKind } from "../steps/registry.js";
import type { StepRef } from "./types.js";

/** How people are told about a step: its `id`, else `step <index + 1> (<kind>)`. */
export function stepLabel(step: Step, index: number): string {
  return step.id ?? `step ${index + 1} (${stepKind(step)})`;
}

/** The reference events and errors carry for the step at `index`. */
export function stepRef(step: Step, index: number): StepRef {
  return {
    index,
    ...(step.id === undefined ? {} : { id: step.id }),
    kind: stepKind(step),
    label: stepLabel(step, index),
  };
}
