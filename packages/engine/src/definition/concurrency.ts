import { ExpressionError } from "../expressions/expression-error.js";
import { hasTemplate, parseTemplate } from "../expressions/template.js";
import { toText } from "../expressions/to-text.js";
import { isRecord } from "./describe.js";
import type { DefinitionProblem } from "./problem.js";

/** The most runs `concurrency` may allow at once: more is no limit at all on any real fleet. */
export const MAX_CONCURRENCY = 1000;

/** The longest a rendered concurrency key may be, in characters (the server refuses longer). */
export const MAX_CONCURRENCY_KEY_LENGTH = 128;

// An expression of a concurrency key: a path into the inputs and nothing else. The key is
// rendered by the API server when a run is queued, where no JSONata may run (a skill's
// expressions run only in run processes).
const INPUT_PATH = /^inputs((?:\.[A-Za-z_][A-Za-z0-9_]*)+)$/;

/**
 * What is wrong with a definition's `concurrency_key`: it needs `concurrency`, and each of its
 * `{{ }}` must be a path into a declared input that is not secret (the key is stored in clear).
 */
export function concurrencyKeyProblems(definition: Record<string, unknown>): DefinitionProblem[] {
  const template = definition.concurrency_key;
  if (typeof template !== "string") return [];
  const path = ["concurrency_key"];
  const problems: DefinitionProblem[] = [];
  if (definition.concurrency === undefined) {
    const message = "concurrency_key needs concurrency: how many runs of one key at once";
    problems.push({ path, at: "key", message });
  }
  if (!hasTemplate(template)) {
    const message = `concurrency_key "${template}" holds no {{ inputs.… }}: every run would share one key; use concurrency alone`;
    return [...problems, { path, at: "value", message }];
  }
  const inputs = Array.isArray(definition.inputs) ? definition.inputs.filter(isRecord) : [];
  let parts: ReturnType<typeof parseTemplate>;
  try {
    parts = parseTemplate(template);
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    return [...problems, { path, at: "value", message: error.message }];
  }
  for (const part of parts) {
    if (!("expression" in part)) continue;
    const match = INPUT_PATH.exec(part.expression);
    const name = match?.[1]?.split(".")[1];
    const input = inputs.find((item) => item.json_key === name);
    let message: string | undefined;
    if (match === null) {
      message = `concurrency_key may only read inputs, as {{ inputs.site }}: ${part.source} is not a path into the inputs`;
    } else if (input === undefined) {
      message = `concurrency_key reads inputs.${name}, which the skill does not declare`;
    } else if (input.secret === true) {
      message = `concurrency_key reads the secret input ${name}: a key is stored in clear`;
    }
    if (message !== undefined) problems.push({ path, at: "value", message, index: part.start });
  }
  return problems;
}

/**
 * A concurrency key rendered against a run's inputs: each `{{ inputs.a.b }}` replaced by the
 * value there as text (nothing for a missing one, JSON for a list or map), as templates read.
 * The template is one the definition's checks accepted.
 */
export function renderConcurrencyKey(template: string, inputs: Record<string, unknown>): string {
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
