import { conditionProblem, templateProblem } from "../expressions/check.js";
import { isStepKind } from "../steps/registry.js";
import { isRecord } from "./describe.js";
import type { DefinitionProblem, PathSegment } from "./problem.js";

/** Reports each template in a step's action, and its `if`, that JSONata cannot parse. */
export function expressionProblems(
  step: Record<string, unknown>,
  path: PathSegment[],
): DefinitionProblem[] {
  const problems: DefinitionProblem[] = [];
  for (const kind of Object.keys(step).filter(isStepKind)) {
    templateProblems(step[kind], [...path, kind], problems);
  }
  if (typeof step.if === "string") {
    const message = conditionProblem(step.if);
    if (message !== undefined) problems.push({ path: [...path, "if"], at: "value", message });
  }
  return problems;
}

function templateProblems(value: unknown, path: PathSegment[], problems: DefinitionProblem[]) {
  if (typeof value === "string") {
    const message = templateProblem(value);
    if (message !== undefined) problems.push({ path, at: "value", message });
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => {
      templateProblems(item, [...path, index], problems);
    });
  } else if (isRecord(value)) {
    for (const [key, item] of Object.entries(value))
      templateProblems(item, [...path, key], problems);
  }
}
