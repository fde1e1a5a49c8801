// Hand-written to match schema.ts; a parsed definition has passed that schema, so these hold.
// Strings in steps may contain `{{ expr }}` templates; they are kept as written. Each step
// kind's action type lives in the kind's own file (steps/registry.ts lists them).

import type { ActionOf, StepKind } from "../steps/registry.js";

/** The type of an input value, as the contract names it. */
export type DataType = "string" | "number" | "boolean" | "array" | "object" | "file" | "tab";

/** One declared input of a skill, after normalisation (`id` and `required` always set). */
export interface InputDeclaration {
  /** Defaults to `input_<json_key>`. */
  id: string;
  json_key: string;
  data_type: DataType;
  description?: string;
  /** Defaults to true. */
  required: boolean;
  /** Matches `data_type`; `file` and `tab` defaults are strings. */
  default?: unknown;
}

/** A skill definition as parsed and normalised from YAML. */
export interface SkillDefinition {
  id: string;
  name: string;
  description?: string;
  inputs: InputDeclaration[];
  /** As written, e.g. `2m`; absent when the definition sets none. */
  timeout?: string;
  /** `timeout` in milliseconds, or the default skill timeout. */
  timeoutMs: number;
  steps: Step[];
}

export interface RetryPolicy {
  /** Total attempts, first one included: 1 to 10. */
  attempts: number;
  /** Pause between attempts, a duration. */
  backoff?: string;
}

/** Keys every step may carry beside its action. */
export interface StepOptions {
  id?: string;
  /** An expression; the step is skipped when it is false. */
  if?: string;
  timeout?: string;
  retry?: RetryPolicy;
}

/** One step: exactly one action key (see `stepKind`) plus optional `StepOptions`. */
export type Step = {
  [K in StepKind]: StepOptions & { [Key in K]: ActionOf<K> };
}[StepKind];
