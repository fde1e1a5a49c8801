import type { StepRunner } from "../../run/steps/step-runner.js";
import { actOn } from "./act-on.js";
import { type BrowserAccess, ELEMENT_TIMEOUT_MS, stepPage } from "./step-page.js";

/** Replaces the value of the first field matching the selector; numbers and booleans as text. */
export function fillRunner(access: BrowserAccess): StepRunner<"fill"> {
  return async (action, context) => {
    const selector = await context.render(action.selector);
    const value = await fieldText(action.value, context.render);
    const { page, timeout } = await stepPage(access, context, ELEMENT_TIMEOUT_MS);
    await actOn(context, page, selector, "fill", timeout, () =>
      page.locator(selector).first().fill(value, { timeout, signal: context.signal }),
    );
    return null;
  };
}

/** A field value as typed: templates rendered in text, numbers and booleans as their text. */
export async function fieldText(
  value: string | number | boolean,
  render: (text: string) => Promise<string>,
): Promise<string> {
  return typeof value === "string" ? render(value) : String(value);
}
