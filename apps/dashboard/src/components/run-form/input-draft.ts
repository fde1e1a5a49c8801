import type { Input } from "@skillrun/client";
import { SECRET_MASK } from "../../api/secret-mask.js";

/** The run form as the user edits it, by input key: text, a tick, or a chosen file. */
export type InputDraft = Record<string, string | boolean | File | null>;

/**
 * The form's first values: the given inputs (a run's, to run it again), else the defaults.
 * A secret the API masked is left empty to be typed again; a file is always chosen anew.
 */
export function initialDraft(
  inputs: Input[],
  given: Record<string, unknown> | undefined,
): InputDraft {
  const draft: InputDraft = {};
  for (const input of inputs) {
    const value = given?.[input.json_key] ?? input.default;
    if (input.data_type === "file") draft[input.json_key] = null;
    else if (input.data_type === "boolean")
      draft[input.json_key] = value === true || value === "true";
    else if (input.secret && value === SECRET_MASK) draft[input.json_key] = "";
    else if (value === undefined || value === null) draft[input.json_key] = "";
    else if (typeof value === "object") draft[input.json_key] = JSON.stringify(value, null, 2);
    else draft[input.json_key] = String(value);
  }
  return draft;
}
