import type { Page } from "playwright-core";
import type { StepContext } from "../../steps/step-context.js";
import { selectorFailure } from "./failures.js";
import { formatWait } from "./step-page.js";

/**
 * Runs a browser call about `selector`, turning its failure into a message naming the selector.
 * An aborted step's error is passed on as it is: the engine reports the abort or timeout itself.
 */
export async function actOn<T>(
  context: StepContext,
  page: Page,
  selector: string,
  doing: string,
  timeout: number,
  act: () => Promise<T>,
): Promise<T> {
  // The browser call is given a little less than the step's timeout so that its own failure,
  // which says why, comes first; should the step's timeout still come first (a page too busy to
  // answer), it names the selector too.
  context.explainTimeout(
    () => `could not ${doing} "${selector}" within ${formatWait(context.timeoutMs ?? timeout)}`,
  );
  try {
    return await act();
  } catch (error) {
    if (context.signal.aborted) throw error;
    throw await selectorFailure(error, page, selector, doing, timeout);
  } finally {
    context.explainTimeout(undefined);
  }
}
