import { isRecord } from "./describe.js";
import type { PathSegment } from "./problem.js";
import { walkSteps } from "./walk-steps.js";

/** A `call` in a definition: the skill it names and where the name is written. */
export interface SkillCall {
  skill: string;
  path: PathSegment[];
}

/**
 * The calls a definition makes, in file order, nested blocks included. Reads a definition as
 * written or as stored (both keep `steps` as written).
 */
export function skillCalls(definition: unknown): SkillCall[] {
  return walkSteps(definition).flatMap(({ step, path }) => {
    const call = step.call;
    if (!isRecord(call) || typeof call.skill !== "string") return [];
    return [{ skill: call.skill, path: [...path, "call", "skill"] }];
  });
}
