import { elementTarget } from "../../definition/schema-parts.js";
import { defineStepKind } from "../../steps/step-kind.js";
import { actOn } from "./act-on.js";
import { stepScope } from "./element-scope.js";
import { ELEMENT_TIMEOUT_MS } from "./step-page.js";

export type HoverAction = { selector: string; frame?: string };

/** Moves the mouse over the first matching element, once visible and still (menus, tooltips). */
export const hoverStep = defineStepKind<HoverAction>({
  schema: elementTarget,
  browser: true,
  async run(action, context) {
    const selector = await context.render(action.selector);
    const { scope, timeout } = await stepScope(context, ELEMENT_TIMEOUT_MS, action.frame);
    context.detail(scope.name(selector));
    await actOn(context, scope, selector, "hover over", timeout, () =>
      scope.locator(selector).first().hover({ timeout, signal: context.signal }),
    );
    return null;
  },
});
