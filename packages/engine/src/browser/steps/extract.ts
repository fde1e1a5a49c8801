import type { Locator } from "playwright-core";
import type { StepRunner } from "../../run/steps/step-runner.js";
import { actOn } from "./act-on.js";
import { type BrowserAccess, ELEMENT_TIMEOUT_MS, stepPage } from "./step-page.js";

/**
 * Saves the text (trimmed, as rendered) or an attribute of the first matching element under
 * `save_as`; with `all`, a list with one entry per match. Null for an attribute an element lacks.
 */
export function extractRunner(access: BrowserAccess): StepRunner<"extract"> {
  return async (action, context) => {
    const selector = await context.render(action.selector);
    const attribute =
      action.attribute === undefined ? undefined : await context.render(action.attribute);
    const { page, timeout } = await stepPage(access, context, ELEMENT_TIMEOUT_MS);
    const options = { timeout, signal: context.signal };
    const read = async (element: Locator): Promise<string | null> =>
      attribute === undefined
        ? // biome-ignore lint/performance/useDomNodeTextContent: a Playwright locator; the rendered text is what a person sees
          (await element.innerText(options)).trim()
        : element.getAttribute(attribute, options);
    const matches = page.locator(selector);
    const value = await actOn(context, page, selector, "read", timeout, async () => {
      // `all` waits for a first match too: a selector matching nothing is more often a mistake
      // than an empty list an answer.
      await matches.first().waitFor({ state: "attached", ...options });
      return action.all === true
        ? Promise.all((await matches.all()).map(read))
        : read(matches.first());
    });
    context.save({ [action.save_as]: value });
    return value;
  };
}
