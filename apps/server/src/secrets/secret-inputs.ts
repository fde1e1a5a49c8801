import { SECRET_MASK } from "@skillrun/engine";
import type { Input } from "../domain/api-types.js";
import { type SecretBox, SecretUnreadable } from "./secret-box.js";

/** What a secret input belongs to: a run, or a schedule (which seals its inputs for each run anew). */
export type InputHolder = { run: string } | { schedule: string };

/** The context a secret input is sealed for: it opens for that run (or schedule) and key only. */
function contextOf(holder: InputHolder | string, jsonKey: string): string[] {
  if (typeof holder === "string") return ["run_input", holder, jsonKey];
  return "run" in holder
    ? ["run_input", holder.run, jsonKey]
    : ["schedule_input", holder.schedule, jsonKey];
}

/**
 * Inputs as stored: each input the skill declares secret and was given is replaced by `***` in
 * `inputs` and kept sealed in `sealed` (null when there is none). `holder`: a run's id, or whose
 * inputs they are.
 */
export function sealSecretInputs(
  box: SecretBox,
  holder: InputHolder | string,
  declared: readonly Input[],
  inputs: Record<string, unknown>,
): { inputs: Record<string, unknown>; sealed: Record<string, string> | null } {
  const shown = { ...inputs };
  const sealed: Record<string, string> = {};
  for (const input of declared) {
    if (input.secret !== true || !Object.hasOwn(inputs, input.json_key)) continue;
    const value = inputs[input.json_key];
    sealed[input.json_key] = box.seal(JSON.stringify(value), contextOf(holder, input.json_key));
    shown[input.json_key] = SECRET_MASK;
  }
  return { inputs: shown, sealed: Object.keys(sealed).length === 0 ? null : sealed };
}

/** The clear values of a run's sealed inputs; SecretUnreadable naming the input that does not open. */
export function openSecretInputs(
  box: SecretBox,
  holder: InputHolder | string,
  sealed: Record<string, string>,
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [jsonKey, value] of Object.entries(sealed)) {
    try {
      values[jsonKey] = JSON.parse(box.open(value, contextOf(holder, jsonKey)));
    } catch (error) {
      if (!(error instanceof SecretUnreadable)) throw error;
      throw new SecretUnreadable(`the secret input "${jsonKey}" cannot be read: ${error.message}`);
    }
  }
  return values;
}
