import { DEFAULT_SKILL_TIMEOUT_MS, parseDuration } from "./duration.js";
import type { ProfileSave } from "./profile.js";
import type {
  DataType,
  DialogChoice,
  InputDeclaration,
  SkillDefinition,
  Step,
  WorkerLossChoice,
} from "./types.js";

/** A definition as written: it passed validation but has no defaults filled in. */
export interface WrittenSkillDefinition {
  id: string;
  name: string;
  description?: string;
  inputs?: WrittenInput[];
  timeout?: string;
  steps: Step[];
  on_dialog?: DialogChoice;
  output?: Record<string, unknown>;
  on_worker_loss?: WorkerLossChoice;
  on_resume?: Step[];
  concurrency?: number;
  concurrency_key?: string;
  profile?: { name: string; save?: ProfileSave };
}

interface WrittenInput {
  id?: string;
  json_key: string;
  data_type: DataType;
  description?: string;
  required?: boolean;
  default?: unknown;
  secret?: boolean;
  accept?: string[];
}

/**
 * Fills in what the format defaults: input `id` and `required`, and `timeoutMs`. `secret: false`
 * is dropped (the default), so a definition that says it hashes as one that does not.
 */
export function normaliseSkillDefinition(written: WrittenSkillDefinition): SkillDefinition {
  const { id, name, description, timeout, steps, on_dialog, output, on_worker_loss } = written;
  const { concurrency, concurrency_key, on_resume, profile } = written;
  return {
    id,
    name,
    ...(description === undefined ? {} : { description }),
    inputs: (written.inputs ?? []).map(normaliseInput),
    ...(timeout === undefined ? {} : { timeout }),
    timeoutMs: timeout === undefined ? DEFAULT_SKILL_TIMEOUT_MS : parseDuration(timeout),
    steps,
    ...(on_dialog === undefined ? {} : { on_dialog }),
    ...(output === undefined ? {} : { output }),
    ...(on_worker_loss === undefined ? {} : { on_worker_loss }),
    ...(on_resume === undefined ? {} : { on_resume }),
    ...(concurrency === undefined ? {} : { concurrency }),
    ...(concurrency_key === undefined ? {} : { concurrency_key }),
    // `save` filled in, so a definition that says `never` hashes as one that does not.
    ...(profile === undefined
      ? {}
      : { profile: { name: profile.name, save: profile.save ?? "never" } }),
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
    ...(input.secret === true ? { secret: true } : {}),
    ...(input.accept === undefined ? {} : { accept: input.accept }),
  };
}
