import type { Step } from "../definition/types.js";
import { stepKind } from "../steps/registry.js";
import type { CheckpointLevel } from "./checkpoint.js";
import type { StepRef } from "./types.js";

/**
 * Where a list of steps sits: the top level of a skill, or inside blocks. `prefix` starts the
 * labels of its steps (`pages #2 › `, `login › `).
 */
export interface StepFrame {
  prefix: string;
  /** The blocks around the list, outermost first: a checkpoint's path up to the list. */
  path: CheckpointLevel[];
  /**
   * False for the steps of `on_resume`, which are no place a run can go on from: their
   * boundaries write no checkpoint.
   */
  checkpoints: boolean;
}

export const TOP_FRAME: StepFrame = { prefix: "", path: [], checkpoints: true };

/**
 * The frame of a block's steps, labelled after the block (`pages #2`, `login`); `level` is where
 * the block is (its index, a loop's round and items).
 */
export function innerFrame(outer: StepFrame, name: string, level: CheckpointLevel): StepFrame {
  return { ...outer, prefix: `${outer.prefix}${name} › `, path: [...outer.path, level] };
}

/** How people are told about a step: its `id`, else `step <index + 1> (<kind>)`. */
export function stepLabel(step: Step, index: number): string {
  return step.id ?? `step ${index + 1} (${stepKind(step)})`;
}

/** The reference events and errors carry for the step at `index` of a list in `frame`. */
export function stepRef(step: Step, index: number, frame: StepFrame = TOP_FRAME): StepRef {
  return {
    index,
    ...(step.id === undefined ? {} : { id: step.id }),
    kind: stepKind(step),
    label: `${frame.prefix}${stepLabel(step, index)}`,
  };
}
