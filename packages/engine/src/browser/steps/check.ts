import { elementTarget } from "../../definition/schema-parts.js";
import type { StepContext } from "../../steps/step-context.js";
import { defineStepKind } from "../../steps/step-kind.js";
import { actOn } from "./act-on.js";
import { stepScope } from "./element-scope.js";
import { ELEMENT_TIMEOUT_MS } from "./step-page.js";

export type CheckAction = { selector: string; frame?: string };

/** Ticks the first matching checkbox or radio button; nothing happens when it is ticked already. */
export const checkStep = defineStepKind<CheckAction>({
  schema: elementTarget,
  browser: true,
  run: (action, context) => setChecked(action, context, true),
});

/** Clears the first matching checkbox; nothing happens when it is clear already. */
export const uncheckStep = defineStepKind<CheckAction>({
  schema: elementTarget,
  browser: true,
  run: (action, context) => setChecked(action, context, false),
});

async function setChecked(action: CheckAction, context: StepContext, checked: boolean) {
  const selector = await context.render(action.selector);
  const { scope, timeout } = await stepScope(context, ELEMENT_TIMEOUT_MS, action.frame);
  context.detail(scope.name(selector));
  // Playwright clicks it when needed and fails when the click did not change it (a page that
  // refuses), which the message then says.
  await actOn(context, scope, selector, checked ? "check" : "uncheck", timeout, () =>
    scope.locator(selector).first().setChecked(checked, { timeout, signal: context.signal }),
  );
  return null;
}
