import { checkInputs as checkDeclaredInputs } from "@skillrun/engine";
import type { Input } from "./api-types.js";
import type { ValidationIssue } from "./errors.js";

/**
 * Checks a run's inputs against the skill's declared inputs with the engine's check (the one a
 * `call` step uses too), each issue located at ["body", "inputs", json_key] as FastAPI would.
 */
export function checkInputs(
  declared: Input[],
  given: Record<string, unknown> | null | undefined,
): { ok: true; values: Record<string, unknown> } | { ok: false; issues: ValidationIssue[] } {
  const checked = checkDeclaredInputs(declared, given);
  if (checked.ok) return checked;
  const issues = checked.issues.map(({ key, msg, type }) => ({
    loc: ["body", "inputs", key],
    msg,
    type,
  }));
  return { ok: false, issues };
}
