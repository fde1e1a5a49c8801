import type { Step, StepKind } from "./types.js";

/** Steps that need no browser. */
export const PLAIN_STEP_KINDS = ["set", "log", "wait", "http"] as const;

/** Steps that drive a browser page. */
export const BROWSER_STEP_KINDS = [
  "goto",
  "click",
  "fill",
  "press",
  "select",
  "wait_for",
  "extract",
  "screenshot",
  "assert_text",
] as const;

/** Every action key a step may hold, in the order the docs list them. */
export const STEP_KINDS: readonly StepKind[] = [...PLAIN_STEP_KINDS, ...BROWSER_STEP_KINDS];

/** Keys a step may carry beside its one action key. */
export const STEP_OPTION_KEYS = ["id", "if", "timeout", "retry"] as const;

/** Tells whether a key names a step kind. */
export function isStepKind(key: string): key is StepKind {
  return (STEP_KINDS as readonly string[]).includes(key);
}

/** The action key of a validated step, e.g. `"http"`. */
export function stepKind(step: Step): StepKind {
  const kind = Object.keys(step).find(isStepKind);
  if (kind === undefined) {
    throw new Error("step has no action key; was it validated?");
  }
  return kind;
}
