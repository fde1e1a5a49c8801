import { frame, saveTarget, selector } from "../../definition/schema-parts.js";
import { defineStepKind } from "../../steps/step-kind.js";
import { actOn } from "./act-on.js";
import { stepScope } from "./element-scope.js";
import { ELEMENT_TIMEOUT_MS } from "./step-page.js";

export type ExistsAction = { selector: string; save_as?: string; frame?: string };

/**
 * `exists`: whether any element matches the selector in the page as it is now: true or false at
 * once, never a wait (`wait_for` is the step that waits).
 */
export const existsStep = defineStepKind<ExistsAction>({
  schema: {
    type: "object",
    required: ["selector"],
    properties: { selector, save_as: saveTarget, frame },
    additionalProperties: false,
  },
  browser: true,
  async run(action, context) {
    const selector = await context.render(action.selector);
    const { scope, timeout } = await stepScope(context, ELEMENT_TIMEOUT_MS, action.frame);
    context.detail(scope.name(selector));
    const count = await actOn(context, scope, selector, "look for", timeout, () =>
      scope.locator(selector).count(),
    );
    const found = count > 0;
    context.detail(`${scope.name(selector)} → ${found}`);
    if (action.save_as !== undefined) context.saveAs(action.save_as, found);
    return found;
  },
});
