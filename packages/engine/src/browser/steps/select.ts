import type { StepRunner } from "../../run/steps/step-runner.js";
import { actOn } from "./act-on.js";
import { fieldText } from "./fill.js";
import { type BrowserAccess, ELEMENT_TIMEOUT_MS, stepPage } from "./step-page.js";

/** Chooses the option whose value or label is `value`; gives the values now selected. */
export function selectRunner(access: BrowserAccess): StepRunner<"select"> {
  return async (action, context) => {
    const selector = await context.render(action.selector);
    const value = await fieldText(action.value, context.render);
    const { page, timeout } = await stepPage(access, context, ELEMENT_TIMEOUT_MS);
    // A string matches an option by value or by label (Playwright's rule).
    return actOn(context, page, selector, `select "${value}" in`, timeout, () =>
      page.locator(selector).first().selectOption(value, { timeout, signal: context.signal }),
    );
  };
}
