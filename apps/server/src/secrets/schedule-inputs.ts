import { SECRET_MASK } from "@skillrun/engine";
import type { Input } from "../domain/api-types.js";
import type { SecretBox } from "./secret-box.js";

/**
 * The context a schedule's secret input is sealed for: it opens for that schedule and key only.
 * Each run the schedule starts gets the value sealed anew for the run (secret-inputs.ts).
 */
function contextOf(scheduleId: string, jsonKey: string): string[] {
  return ["schedule_input", scheduleId, jsonKey];
}

/**
 * A schedule's inputs as stored: each input the skill declares secret is `***` in `inputs` and
 * kept sealed in `sealed` (null when there is none), as a run's are.
 */
export function sealScheduleInputs(
  box: SecretBox,
  scheduleId: string,
  declared: readonly Input[],
  inputs: Record<string, unknown>,
): { inputs: Record<string, unknown>; sealed: Record<string, string> | null } {
  const shown = { ...inputs };
  const sealed: Record<string, string> = {};
  for (const input of declared) {
    if (input.secret !== true || !Object.hasOwn(inputs, input.json_key)) continue;
    const value = inputs[input.json_key];
    sealed[input.json_key] = box.seal(JSON.stringify(value), contextOf(scheduleId, input.json_key));
    shown[input.json_key] = SECRET_MASK;
  }
  return { inputs: shown, sealed: Object.keys(sealed).length === 0 ? null : sealed };
}

/** A schedule's inputs in the clear: the stored ones with the sealed values opened over them. */
export function openScheduleInputs(
  box: SecretBox,
  scheduleId: string,
  inputs: Record<string, unknown>,
  sealed: Record<string, string> | null,
): Record<string, unknown> {
  const values = { ...inputs };
  for (const [jsonKey, value] of Object.entries(sealed ?? {})) {
    values[jsonKey] = JSON.parse(box.open(value, contextOf(scheduleId, jsonKey)));
  }
  return values;
}
