import { selector } from "../../definition/schema-parts.js";
import { defineStepKind } from "../../steps/step-kind.js";
import { actOn } from "./act-on.js";
import { ELEMENT_TIMEOUT_MS, stepPage } from "./step-page.js";

export type ClickAction = { selector: string };

/** Clicks the first element matching the selector, once it is visible, enabled and still. */
export const clickStep = defineStepKind<ClickAction>({
  schema: {
    type: "object",
    required: ["selector"],
    properties: { selector },
    additionalProperties: false,
  },
  browser: true,
  async run(action, context) {
    const selector = await context.render(action.selector);
    const { page, timeout } = await stepPage(context, ELEMENT_TIMEOUT_MS);
    await actOn(context, page, selector, "click", timeout, () =>
      page.locator(selector).first().click({ timeout, signal: context.signal }),
    );
    return null;
  },
});
