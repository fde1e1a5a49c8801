import { assertTextStep } from "../browser/steps/assert-text.js";
import { clickStep } from "../browser/steps/click.js";
import { extractStep } from "../browser/steps/extract.js";
import { fillStep } from "../browser/steps/fill.js";
import { gotoStep } from "../browser/steps/goto.js";
import { pressStep } from "../browser/steps/press.js";
import { screenshotStep } from "../browser/steps/screenshot.js";
import { selectStep } from "../browser/steps/select.js";
import { waitForStep } from "../browser/steps/wait-for.js";
import type { Step } from "../definition/types.js";
import { failStep } from "./fail.js";
import { httpStep } from "./http.js";
import { logStep } from "./log.js";
import { setStep } from "./set.js";
import type { StepKindDefinition } from "./step-kind.js";
import { waitStep } from "./wait.js";

/**
 * Every step kind, by its action key, in the order the docs list them. Adding a kind is its own
 * file (schema and runner, see step-kind.ts) and one line here; `StepKind`, the definition
 * format's schema and the engine's dispatch all follow from this map.
 */
export const STEP_KIND_DEFINITIONS = {
  set: setStep,
  log: logStep,
  wait: waitStep,
  http: httpStep,
  fail: failStep,
  goto: gotoStep,
  click: clickStep,
  fill: fillStep,
  press: pressStep,
  select: selectStep,
  wait_for: waitForStep,
  extract: extractStep,
  screenshot: screenshotStep,
  assert_text: assertTextStep,
};

/** A step's action key, e.g. `"http"`. */
export type StepKind = keyof typeof STEP_KIND_DEFINITIONS;

/** The action of a step of kind `K` as written, e.g. an `HttpRequest` for `http`. */
export type ActionOf<K extends StepKind> =
  (typeof STEP_KIND_DEFINITIONS)[K] extends StepKindDefinition<infer Action> ? Action : never;

/** Every step kind, in the order the docs list them. */
export const STEP_KINDS = Object.keys(STEP_KIND_DEFINITIONS) as StepKind[];

/** Keys a step may carry beside its one action key. */
export const STEP_OPTION_KEYS = ["id", "if", "timeout", "retry"] as const;

/** Tells whether a key names a step kind. */
export function isStepKind(key: string): key is StepKind {
  return Object.hasOwn(STEP_KIND_DEFINITIONS, key);
}

/** The definition of a kind, typed for any action: the engine hands each its own. */
export function stepKindDefinition(kind: StepKind): StepKindDefinition<unknown> {
  return STEP_KIND_DEFINITIONS[kind] as StepKindDefinition<unknown>;
}

/** The action key of a validated step, e.g. `"http"`. */
export function stepKind(step: Step): StepKind {
  const kind = Object.keys(step).find(isStepKind);
  if (kind === undefined) throw new Error("step has no action key; was it validated?");
  return kind;
}
