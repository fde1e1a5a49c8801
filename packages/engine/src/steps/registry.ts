import { assertTextStep } from "../browser/steps/assert-text.js";
import { checkStep, uncheckStep } from "../browser/steps/check.js";
import { clickStep } from "../browser/steps/click.js";
import { closeTabStep } from "../browser/steps/close-tab.js";
import { downloadStep } from "../browser/steps/download.js";
import { evaluateStep } from "../browser/steps/evaluate.js";
import { existsStep } from "../browser/steps/exists.js";
import { extractStep } from "../browser/steps/extract.js";
import { fillStep } from "../browser/steps/fill.js";
import { gotoStep } from "../browser/steps/goto.js";
import { hoverStep } from "../browser/steps/hover.js";
import { pressStep } from "../browser/steps/press.js";
import { screenshotStep } from "../browser/steps/screenshot.js";
import { scrollStep } from "../browser/steps/scroll.js";
import { selectStep } from "../browser/steps/select.js";
import { switchTabStep } from "../browser/steps/switch-tab.js";
import { uploadStep } from "../browser/steps/upload.js";
import { waitForStep } from "../browser/steps/wait-for.js";
import type { Step } from "../definition/types.js";
import { askStep } from "./ask.js";
import { callStep } from "./call.js";
import { failStep } from "./fail.js";
import { forEachStep } from "./for-each.js";
import { httpStep } from "./http.js";
import { letStep } from "./let.js";
import { logStep } from "./log.js";
import { readFileStep } from "./read-file.js";
import { repeatStep } from "./repeat.js";
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
  let: letStep,
  log: logStep,
  wait: waitStep,
  http: httpStep,
  fail: failStep,
  repeat: repeatStep,
  for_each: forEachStep,
  call: callStep,
  ask: askStep,
  goto: gotoStep,
  click: clickStep,
  fill: fillStep,
  press: pressStep,
  select: selectStep,
  wait_for: waitForStep,
  extract: extractStep,
  exists: existsStep,
  screenshot: screenshotStep,
  assert_text: assertTextStep,
  download: downloadStep,
  upload: uploadStep,
  read_file: readFileStep,
  hover: hoverStep,
  check: checkStep,
  uncheck: uncheckStep,
  scroll: scrollStep,
  evaluate: evaluateStep,
  switch_tab: switchTabStep,
  close_tab: closeTabStep,
};

/** A step's action key, e.g. `"http"`. */
export type StepKind = keyof typeof STEP_KIND_DEFINITIONS;

/** The action of a step of kind `K` as written, e.g. an `HttpRequest` for `http`. */
export type ActionOf<K extends StepKind> =
  (typeof STEP_KIND_DEFINITIONS)[K] extends StepKindDefinition<infer Action> ? Action : never;

/** Every step kind, in the order the docs list them. */
export const STEP_KINDS = Object.keys(STEP_KIND_DEFINITIONS) as StepKind[];

/** Keys a step may carry beside its one action key. */
export const STEP_OPTION_KEYS = ["id", "if", "timeout", "retry", "optional", "on_dialog"] as const;

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
