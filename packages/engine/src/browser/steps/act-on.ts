import type { Page } from "playwright-core";
import type { StepContext } from "../../steps/step-context.js";
import { selectorFailure } from "./failures.js";

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
  try {
    return await act();
  } catch (error) {
    if (context.signal.aborted) throw error;
    throw await selectorFailure(error, page, selector, doing, timeout);
  }
}
