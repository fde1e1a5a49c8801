import { isRecord } from "./describe.js";
import type { DefinitionProblem } from "./problem.js";

/**
 * What an input declared `secret: true` may not be: anything but a string (masking finds text),
 * or given a `default` (the definition, and with it the default, is stored and shown in clear).
 */
export function secretInputProblems(inputs: unknown[]): DefinitionProblem[] {
  const problems: DefinitionProblem[] = [];
  inputs.forEach((input, index) => {
    if (!isRecord(input) || input.secret !== true) return;
    if (input.data_type !== "string" && typeof input.data_type === "string") {
      const message = `a secret input must have data_type "string", got "${input.data_type}"`;
      problems.push({ path: ["inputs", index, "data_type"], at: "value", message });
    }
    if ("default" in input) {
      const message =
        "a secret input cannot have a default: the skill, and its defaults, are stored and shown in clear";
      problems.push({ path: ["inputs", index, "default"], at: "key", message });
    }
  });
  return problems;
}
