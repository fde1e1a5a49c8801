import { errors } from "playwright-core";
import type { StepRunner } from "../../run/steps/step-runner.js";
import { noMatch, selectorFailure } from "./failures.js";
import { type BrowserAccess, ELEMENT_TIMEOUT_MS, formatWait, stepPage } from "./step-page.js";

/** Waits until the first element matching the selector is visible (or hidden, attached, detached). */
export function waitForRunner(access: BrowserAccess): StepRunner<"wait_for"> {
  return async (action, context) => {
    const selector = await context.render(action.selector);
    const state = action.state ?? "visible";
    const { page, timeout } = await stepPage(access, context, ELEMENT_TIMEOUT_MS);
    const target = page.locator(selector).first();
    try {
      await target.waitFor({ state, timeout, signal: context.signal });
    } catch (error) {
      if (context.signal.aborted) throw error;
      if (!(error instanceof errors.TimeoutError)) {
        throw await selectorFailure(error, page, selector, "wait for", timeout);
      }
      // Waiting to be visible or attached times out on an absent element, which deserves saying.
      const present = (await target.count().catch(() => 1)) > 0;
      if (!present) throw noMatch(selector, timeout);
      throw new Error(`"${selector}" did not become ${state} within ${formatWait(timeout)}`);
    }
    return null;
  };
}
