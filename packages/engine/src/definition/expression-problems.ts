import { conditionProblem, templateProblem } from "../expressions/check.js";
import type { DefinitionProblem, PathSegment } from "./problem.js";
import { stepStrings, stringsIn, type TemplatedString } from "./templated-strings.js";

/**
 * Reports each template in a step's action, and its `if` (and a loop's `until`), that JSONata
 * cannot parse. A block's own steps are left to their own check.
 */
export function expressionProblems(
  step: Record<string, unknown>,
  path: PathSegment[],
): DefinitionProblem[] {
  return stepStrings(step, path).flatMap(problemsOf);
}

/** Reports each template in a value (the skill's `output`) that JSONata cannot parse. */
export function templateProblemsIn(value: unknown, path: PathSegment[]): DefinitionProblem[] {
  return stringsIn(value, path).flatMap(problemsOf);
}

function problemsOf({ text, path, role }: TemplatedString): DefinitionProblem[] {
  const message =
    role === "template" ? templateProblem(text) : conditionProblem(text, String(path.at(-1)));
  return message === undefined ? [] : [{ path, at: "value", message }];
}
