import { selectorAndValue } from "../../definition/schema-parts.js";
import { defineStepKind } from "../../steps/step-kind.js";
import { actOn } from "./act-on.js";
import { stepScope } from "./element-scope.js";
import { type FieldValue, fieldText } from "./fill.js";
import { ELEMENT_TIMEOUT_MS } from "./step-page.js";

export type SelectAction = { selector: string; value: FieldValue; frame?: string };

/** Chooses the option whose value or label is `value`; gives the values now selected. */
export const selectStep = defineStepKind<SelectAction>({
  schema: selectorAndValue,
  browser: true,
  async run(action, context) {
    const selector = await context.render(action.selector);
    const value = await fieldText(action.value, context.render);
    const { scope, timeout } = await stepScope(context, ELEMENT_TIMEOUT_MS, action.frame);
    context.detail(`${scope.name(selector)} ← ${context.preview(value)}`);
    // A string matches an option by value or by label (Playwright's rule).
    const selected = await actOn(context, scope, selector, `select "${value}" in`, timeout, () =>
      scope.locator(selector).first().selectOption(value, { timeout, signal: context.signal }),
    );
    context.detail(`${scope.name(selector)} → ${context.preview(selected)}`);
    return selected;
  },
});
