import {
  isProfileName,
  MAX_CONCURRENCY_KEY_LENGTH,
  MAX_PROFILE_NAME_LENGTH,
  PROFILE_NAME_RULE,
  renderConcurrencyKey,
  renderProfileName,
} from "@skillrun/engine";
import type { RunProfileChoice } from "../db/repositories/runs.js";
import type { SkillToRun } from "../db/repositories/skills.js";
import type { UploadedFileRepository } from "../db/repositories/uploaded-files.js";
import { isStorableText } from "../db/storable-text.js";
import { checkFileInputs } from "../files/file-inputs.js";
import { RequestInvalid } from "./errors.js";
import { type InputLimits, inputLimitIssue } from "./input-limits.js";
import { checkInputs } from "./inputs.js";

/** What checking a run's inputs needs: the owner's uploads (for `file` inputs) and the limits. */
export interface RunInputChecks {
  uploads: UploadedFileRepository;
  inputLimits: InputLimits;
}

/** A skill's concurrency for one run: its limit, and its key rendered against the inputs. */
export type RunConcurrency = { limit: number; key: string | null } | null;

/**
 * The inputs of a run of `found` as checked and stored, its concurrency and profile, as `POST /run/`
 * checks them (a schedule's too, at creation and at each tick); RequestInvalid with the issues at
 * ["body", "inputs", …] otherwise.
 */
export async function checkRunInputs(
  deps: RunInputChecks,
  owner: string,
  found: SkillToRun,
  given: Record<string, unknown> | null | undefined,
): Promise<{
  inputs: Record<string, unknown>;
  concurrency: RunConcurrency;
  profile: RunProfileChoice | null;
}> {
  const { skill } = found;
  const checked = checkInputs(skill.inputs, given);
  if (!checked.ok) throw new RequestInvalid(checked.issues);
  // Measured on what is stored: inputs given as JSON text are parsed by now.
  const tooLarge = inputLimitIssue(checked.values, deps.inputLimits);
  if (tooLarge) throw new RequestInvalid([tooLarge]);
  const fileIssues = await checkFileInputs(skill.inputs, checked.values, owner, deps.uploads);
  if (fileIssues.length > 0) throw new RequestInvalid(fileIssues);
  return {
    inputs: checked.values,
    concurrency: concurrencyOf(found, checked.values),
    profile: profileOf(found, checked.values),
  };
}

/**
 * The skill's concurrency for a run of these inputs, its key rendered; a 422 at the inputs when
 * the key would be longer than the database keeps one.
 */
export function concurrencyOf(found: SkillToRun, inputs: Record<string, unknown>): RunConcurrency {
  if (found.concurrency === null) return null;
  const { limit, keyTemplate } = found.concurrency;
  if (keyTemplate === null) return { limit, key: null };
  const key = renderConcurrencyKey(keyTemplate, inputs);
  if (key.length > MAX_CONCURRENCY_KEY_LENGTH || !isStorableText(key)) {
    throw new RequestInvalid([
      {
        loc: ["body", "inputs"],
        msg: `Value error, the skill's concurrency_key renders to ${key.length} characters for these inputs; at most ${MAX_CONCURRENCY_KEY_LENGTH}`,
        type: "value_error",
      },
    ]);
  }
  return { limit, key };
}

/**
 * The skill's browser profile for a run of these inputs, its name rendered: a 422 at the inputs
 * when the name they make is not a profile's (odd characters, too long, empty), since the name
 * goes into the queue's counts, the log and the API's addresses as it is.
 */
export function profileOf(
  found: SkillToRun,
  inputs: Record<string, unknown>,
): RunProfileChoice | null {
  if (found.profile === null) return null;
  const { nameTemplate, save } = found.profile;
  const name = renderProfileName(nameTemplate, inputs);
  if (!isProfileName(name)) {
    throw new RequestInvalid([
      {
        loc: ["body", "inputs"],
        msg: `Value error, the skill's profile name renders to ${JSON.stringify(name.slice(0, MAX_PROFILE_NAME_LENGTH + 1))} for these inputs; a profile's name is ${PROFILE_NAME_RULE}`,
        type: "value_error",
      },
    ]);
  }
  return { name, save: save === "never" ? null : save };
}
