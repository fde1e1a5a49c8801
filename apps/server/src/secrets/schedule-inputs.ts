import type { Input } from "../domain/api-types.js";
import type { SecretBox } from "./secret-box.js";
import { openSecretInputs, sealSecretInputs } from "./secret-inputs.js";

// A schedule's secret inputs are sealed for the schedule and key only; each run the schedule
// starts gets the value sealed anew for the run (secret-inputs.ts).

/** A schedule's inputs as stored: secret ones `***` in `inputs`, kept sealed in `sealed`. */
export function sealScheduleInputs(
  box: SecretBox,
  scheduleId: string,
  declared: readonly Input[],
  inputs: Record<string, unknown>,
): { inputs: Record<string, unknown>; sealed: Record<string, string> | null } {
  return sealSecretInputs(box, { schedule: scheduleId }, declared, inputs);
}

/** A schedule's inputs in the clear: the stored ones with the sealed values opened over them. */
export function openScheduleInputs(
  box: SecretBox,
  scheduleId: string,
  inputs: Record<string, unknown>,
  sealed: Record<string, string> | null,
): Record<string, unknown> {
  return { ...inputs, ...openSecretInputs(box, { schedule: scheduleId }, sealed ?? {}) };
}
