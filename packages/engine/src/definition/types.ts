import type { ProfileSave } from "./profile.js";
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
  /**
   * `true`: the value is kept encrypted, shown as `***` and masked in everything the run
   * reports. Absent when false, so definitions written before it keep their hash.
   */
  secret?: true;
  /**
   * For a `file` input: the media types (`text/csv`, `image/*`) its file may have; absent: any.
   * Absent unless declared, so definitions written before it keep their hash.
   */
  accept?: string[];
}

/** What is answered to a dialog: OK (a prompt's default text) or Cancel. */
export type DialogChoice = "accept" | "dismiss";

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
  /** What dialogs are answered while no step says otherwise; absent: accept. */
  on_dialog?: DialogChoice;
  /** When present, the run's data at the end is exactly this map, templates resolved. */
  output?: Record<string, unknown>;
  /**
   * What becomes of a run whose worker is lost: `resume` (absent: the default) goes on from its
   * last checkpoint unless lost inside a step with effects; `reset` ends it once a step with
   * effects began; `restart` runs it again from the start.
   */
  on_worker_loss?: WorkerLossChoice;
  /** Steps run first whenever the run goes on from a checkpoint (see ExecuteSkillOptions.resume). */
  on_resume?: Step[];
  /** How many runs of the skill (of one key, with `concurrency_key`) may execute at once. */
  concurrency?: number;
  /** A template of the inputs naming what runs share the `concurrency` limit. */
  concurrency_key?: string;
  /**
   * The browser profile the run's browser starts with (`name`, a template of the inputs) and
   * when its state is written back (`save`; normalised: always present).
   */
  profile?: ProfileChoice;
}

/** A skill's browser profile (see SkillDefinition.profile). */
export interface ProfileChoice {
  name: string;
  save: ProfileSave;
}

/** What becomes of a run whose worker was lost (see SkillDefinition.on_worker_loss). */
export type WorkerLossChoice = "resume" | "reset" | "restart";

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
  /** A failure is logged and the run goes on; the step's result is `{ error }`. */
  optional?: boolean;
  /** What dialogs opening while the step (or a step inside it) runs are answered. */
  on_dialog?: DialogChoice;
}

/** One step: exactly one action key (see `stepKind`) plus optional `StepOptions`. */
export type Step = {
  [K in StepKind]: StepOptions & { [Key in K]: ActionOf<K> };
}[StepKind];
