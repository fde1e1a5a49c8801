import { selectorAndValue } from "../../definition/schema-parts.js";
import { defineStepKind } from "../../steps/step-kind.js";
import { actOn } from "./act-on.js";
import { stepScope } from "./element-scope.js";
import { ELEMENT_TIMEOUT_MS } from "./step-page.js";

/** A value typed into a field; numbers and booleans are typed as their text. */
export type FieldValue = string | number | boolean;

export type FillAction = { selector: string; value: FieldValue; frame?: string };

/** Replaces the value of the first field matching the selector; numbers and booleans as text. */
export const fillStep = defineStepKind<FillAction>({
  schema: selectorAndValue,
  browser: true,
  async run(action, context) {
    const selector = await context.render(action.selector);
    const value = await fieldText(action.value, context.render);
    const { scope, timeout } = await stepScope(context, ELEMENT_TIMEOUT_MS, action.frame);
    context.detail(scope.name(selector));
    await actOn(context, scope, selector, "fill", timeout, () =>
      scope.locator(selector).first().fill(value, { timeout, signal: context.signal }),
    );
    // What was typed into a password field is not shown, secret or not.
    const password = await scope
      .locator(selector)
      .first()
      .getAttribute("type", { timeout })
      .then((type) => type?.toLowerCase() === "password")
      .catch(() => true);
    context.detail(
      `${scope.name(selector)} ← ${password ? "*** (a password field)" : context.preview(value)}`,
    );
    return null;
  },
});

/** A field value as typed: templates rendered in text, numbers and booleans as their text. */
export async function fieldText(
  value: string | number | boolean,
  render: (text: string) => Promise<string>,
): Promise<string> {
  return typeof value === "string" ? render(value) : String(value);
}
