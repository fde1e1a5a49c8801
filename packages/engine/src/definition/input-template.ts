import { ExpressionError } from "../expressions/expression-error.js";
import { parseTemplate } from "../expressions/template.js";
import { toText } from "../expressions/to-text.js";
import { isRecord } from "./describe.js";
import type { DefinitionProblem } from "./problem.js";

// An expression of a template the API server renders when a run is queued (a concurrency key, a
// profile's name): a path into the inputs and nothing else, because no JSONata may run on the
// server's thread (a skill's expressions run only in run processes).
const INPUT_PATH = /^inputs((?:\.[A-Za-z_][A-Za-z0-9_]*)+)$/;

/**
 * What is wrong with a template of the inputs at `field` of a definition: each `{{ }}` must be a
 * path into a declared input that is not secret, since what it renders is stored in clear.
 */
export function inputTemplateProblems(
  definition: Record<string, unknown>,
  template: string,
  path: (string | number)[],
  names: { field: string; stored: string },
): DefinitionProblem[] {
  const { field, stored } = names;
  const inputs = Array.isArray(definition.inputs) ? definition.inputs.filter(isRecord) : [];
  let parts: ReturnType<typeof parseTemplate>;
  try {
    parts = parseTemplate(template);
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    return [{ path, at: "value", message: error.message }];
  }
  const problems: DefinitionProblem[] = [];
  for (const part of parts) {
    if (!("expression" in part)) continue;
    const match = INPUT_PATH.exec(part.expression);
    const name = match?.[1]?.split(".")[1];
    const input = inputs.find((item) => item.json_key === name);
    let message: string | undefined;
    if (match === null) {
      message = `${field} may only read inputs, as {{ inputs.site }}: ${part.source} is not a path into the inputs`;
    } else if (input === undefined) {
      message = `${field} reads inputs.${name}, which the skill does not declare`;
    } else if (input.secret === true) {
      message = `${field} reads the secret input ${name}: ${stored} is stored in clear`;
    }
    if (message !== undefined) problems.push({ path, at: "value", message, index: part.start });
  }
  return problems;
}

/** The literal text of a template: what is outside its `{{ }}`. */
export function templateLiterals(template: string): string {
  try {
    return parseTemplate(template)
      .map((part) => ("expression" in part ? "" : part.text))
      .join("");
  } catch {
    return template;
  }
}

/**
 * A template of the inputs rendered against a run's inputs: each `{{ inputs.a.b }}` replaced by
 * the value there as text (nothing for a missing one, JSON for a list or map), as templates read.
 * The template is one inputTemplateProblems accepted.
 */
export function renderInputTemplate(template: string, inputs: Record<string, unknown>): string {
  return parseTemplate(template)
    .map((part) => {
      if (!("expression" in part)) return part.text;
      const names = INPUT_PATH.exec(part.expression)?.[1]?.split(".").slice(1) ?? [];
      let value: unknown = inputs;
      for (const name of names) value = isRecord(value) ? value[name] : undefined;
      return toText(value);
    })
    .join("");
}
