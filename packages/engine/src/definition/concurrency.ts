import { hasTemplate } from "../expressions/template.js";
import { inputTemplateProblems, renderInputTemplate } from "./input-template.js";
import type { DefinitionProblem } from "./problem.js";

/** The most runs `concurrency` may allow at once: more is no limit at all on any real fleet. */
export const MAX_CONCURRENCY = 1000;

/** The longest a rendered concurrency key may be, in characters (the server refuses longer). */
export const MAX_CONCURRENCY_KEY_LENGTH = 128;

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
  return [
    ...problems,
    ...inputTemplateProblems(definition, template, path, {
      field: "concurrency_key",
      stored: "a key",
    }),
  ];
}

/**
 * A concurrency key rendered against a run's inputs: each `{{ inputs.a.b }}` replaced by the
 * value there as text (nothing for a missing one, JSON for a list or map), as templates read.
 * The template is one the definition's checks accepted.
 */
export function renderConcurrencyKey(template: string, inputs: Record<string, unknown>): string {
  return renderInputTemplate(template, inputs);
}
