import type { Input } from "@skillrun/client";
import type { InputDraft } from "./input-draft.js";

/**
 * The inputs a run is started with, read from the draft (files by the ids of their uploads),
 * and what could not be read, by input key.
 */
export function inputValues(
  inputs: Input[],
  draft: InputDraft,
  fileIds: Record<string, string>,
): { values: Record<string, unknown>; issues: Record<string, string> } {
  const values: Record<string, unknown> = {};
  const issues: Record<string, string> = {};
  for (const input of inputs) {
    const key = input.json_key;
    const raw = draft[key];
    if (input.data_type === "file") {
      if (fileIds[key] !== undefined) values[key] = fileIds[key];
      continue;
    }
    if (input.data_type === "boolean") {
      values[key] = raw === true;
      continue;
    }
    const text = typeof raw === "string" ? raw : "";
    // An optional input left empty is not sent, so that its default applies; a required one is,
    // for the server to say it is missing.
    if (text === "" && input.required === false) continue;
    if (text === "") values[key] = text;
    else if (input.data_type === "number") values[key] = Number(text);
    else if (input.data_type === "array" || input.data_type === "object") {
      try {
        values[key] = JSON.parse(text);
      } catch {
        issues[key] = "Not valid JSON.";
      }
    } else values[key] = text;
  }
  return { values, issues };
}
