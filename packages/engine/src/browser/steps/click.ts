import { frame, selector } from "../../definition/schema-parts.js";
import { defineStepKind } from "../../steps/step-kind.js";
import { actOn } from "./act-on.js";
import { stepScope } from "./element-scope.js";
import { ELEMENT_TIMEOUT_MS } from "./step-page.js";

export type ClickAction = { selector: string; frame?: string };

/** Clicks the first element matching the selector, once it is visible, enabled and still. */
export const clickStep = defineStepKind<ClickAction>({
  schema: {
    type: "object",
    required: ["selector"],
    properties: { selector, frame },
    additionalProperties: false,
  },
  browser: true,
  async run(action, context) {
    const selector = await context.render(action.selector);
    const { scope, timeout } = await stepScope(context, ELEMENT_TIMEOUT_MS, action.frame);
    context.detail(scope.name(selector));
    await actOn(context, scope, selector, "click", timeout, () =>
      scope.locator(selector).first().click({ timeout, signal: context.signal }),
    );
    return null;
  },
});
