import type { Page } from "playwright-core";
import type { StepContext } from "../../steps/step-context.js";
import type { ElementScope } from "./element-scope.js";
import { scopeOf, selectorFailure } from "./failures.js";
import { formatWait } from "./step-page.js";

/**
 * Runs a browser call about `selector`, turning its failure into a message naming the selector
 * (and the frame it is looked for in). `where` is the step's scope, or a page for the page itself.
 * An aborted step's error is passed on as it is: the engine reports the abort or timeout itself.
 */
export async function actOn<T>(
  context: StepContext,
  where: Page | ElementScope,
  selector: string,
  doing: string,
  timeout: number,
  act: () => Promise<T>,
): Promise<T> {
  const scope = scopeOf(where);
  // The browser call is given a little less than the step's timeout so that its own failure,
  // which says why, comes first; should the step's timeout still come first (a page too busy to
  // answer), it names the selector too.
  context.explainTimeout(
    () =>
      `could not ${doing} ${scope.name(selector)} within ${formatWait(context.timeoutMs ?? timeout)}`,
  );
  try {
    return await act();
  } catch (error) {
    if (context.signal.aborted) throw error;
    throw await selectorFailure(error, scope, selector, doing, timeout);
  } finally {
    context.explainTimeout(undefined);
  }
}
