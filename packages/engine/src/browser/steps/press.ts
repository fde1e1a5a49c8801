import { raceAbort } from "../../run/abort.js";
import type { StepRunner } from "../../run/steps/step-runner.js";
import { firstLine, withoutApiName } from "../error-text.js";
import { actOn } from "./act-on.js";
import { type BrowserAccess, ELEMENT_TIMEOUT_MS, stepPage } from "./step-page.js";

/** Presses a key or chord (`Enter`, `Control+A`) on the first matching element, or on the page. */
export function pressRunner(access: BrowserAccess): StepRunner<"press"> {
  return async (action, context) => {
    const key = await context.render(action.key);
    const selector =
      action.selector === undefined ? undefined : await context.render(action.selector);
    const { page, timeout } = await stepPage(access, context, ELEMENT_TIMEOUT_MS);
    if (selector === undefined) {
      // The keyboard goes to whatever has focus and waits for nothing, so it takes no timeout.
      await raceAbort(page.keyboard.press(key), context.signal).catch((error: unknown) => {
        if (context.signal.aborted) throw error;
        throw new Error(`could not press ${key}: ${withoutApiName(firstLine(error))}`);
      });
      return null;
    }
    await actOn(context, page, selector, `press ${key} on`, timeout, () =>
      page.locator(selector).first().press(key, { timeout, signal: context.signal }),
    );
    return null;
  };
}
