import { isStepKind, stepKindDefinition } from "../steps/registry.js";
import { isRecord } from "./describe.js";
import type { PathSegment } from "./problem.js";

/** A step found in a definition, as written, with where it is. */
export interface FoundStep {
  step: Record<string, unknown>;
  path: PathSegment[];
  /** The paths of the blocks around it, outermost first (empty at the top level). */
  blocks: PathSegment[][];
}

/**
 * Every step of a definition as written (validated or not), blocks' steps included, in the
 * order they appear in the file: a block before its steps, its steps before the next step.
 */
export function walkSteps(definition: unknown): FoundStep[] {
  const found: FoundStep[] = [];
  if (isRecord(definition) && Array.isArray(definition.steps)) {
    visit(definition.steps, ["steps"], [], found);
  }
  // Run after a restore, once the skill's steps up to the checkpoint have: they come after them.
  if (isRecord(definition) && Array.isArray(definition.on_resume)) {
    visit(definition.on_resume, ["on_resume"], [], found);
  }
  return found;
}

/** The step lists inside a step (a loop's `steps`), each with its path. */
export function innerStepLists(
  step: Record<string, unknown>,
  path: PathSegment[],
): { steps: unknown[]; path: PathSegment[] }[] {
  const lists: { steps: unknown[]; path: PathSegment[] }[] = [];
  for (const kind of Object.keys(step).filter(isStepKind)) {
    const action = step[kind];
    if (!isRecord(action)) continue;
    for (const key of stepKindDefinition(kind).blocks ?? []) {
      const inner = action[key];
      if (Array.isArray(inner)) lists.push({ steps: inner, path: [...path, kind, key] });
    }
  }
  return lists;
}

function visit(steps: unknown[], path: PathSegment[], blocks: PathSegment[][], found: FoundStep[]) {
  steps.forEach((step, index) => {
    if (!isRecord(step)) return;
    const at = [...path, index];
    found.push({ step, path: at, blocks });
    for (const inner of innerStepLists(step, at))
      visit(inner.steps, inner.path, [...blocks, at], found);
  });
}
