import { DEFAULT_SKILL_TIMEOUT_MS, parseDuration } from "./duration.js";
import type { DataType, InputDeclaration, SkillDefinition, Step } from "./types.js";

/** A definition as written: it passed validation but has no defaults filled in. */
export interface WrittenSkillDefinition {
  id: string;
  name: string;
  description?: string;
  inputs?: WrittenInput[];
  timeout?: string;
  steps: Step[];
}

interface WrittenInput {
  id?: string;
  json_key: string;
  data_type: DataType;
  description?: string;
  required?: boolean;
  default?: unknown;
}

/** Fills in what the format defaults: input `id` and `required`, and `timeoutMs`. */
export function normaliseSkillDefinition(written: WrittenSkillDefinition): SkillDefinition {
  const { id, name, description, timeout, steps } = written;
  return {
    id,
    name,
    ...(description === undefined ? {} : { description }),
    inputs: (written.inputs ?? []).map(normaliseInput),
    ...(timeout === undefined ? {} : { timeout }),
    timeoutMs: timeout === undefined ? DEFAULT_SKILL_TIMEOUT_MS : parseDuration(timeout),
    steps,
  };
}

function normaliseInput(input: WrittenInput): InputDeclaration {
  return {
    id: input.id ?? `input_${input.json_key}`,
    json_key: input.json_key,
    data_type: input.data_type,
    ...(input.description === undefined ? {} : { description: input.description }),
    required: input.required ?? true,
    ...("default" in input ? { default: input.default } : {}),
  };
}
