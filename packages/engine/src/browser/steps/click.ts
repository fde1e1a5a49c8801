import type { StepRunner } from "../../run/steps/step-runner.js";
import { actOn } from "./act-on.js";
import { type BrowserAccess, ELEMENT_TIMEOUT_MS, stepPage } from "./step-page.js";

/** Clicks the first element matching the selector, once it is visible, enabled and still. */
export function clickRunner(access: BrowserAccess): StepRunner<"click"> {
  return async (action, context) => {
    const selector = await context.render(action.selector);
    const { page, timeout } = await stepPage(access, context, ELEMENT_TIMEOUT_MS);
    await actOn(context, page, selector, "click", timeout, () =>
      page.locator(selector).first().click({ timeout, signal: context.signal }),
    );
    return null;
  };
}
