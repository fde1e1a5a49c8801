import type { Locator } from "playwright-core";
import { ref, selector, text } from "../../definition/schema-parts.js";
import { defineStepKind } from "../../steps/step-kind.js";
import { actOn } from "./act-on.js";
import { ELEMENT_TIMEOUT_MS, stepPage } from "./step-page.js";

export type ExtractAction = {
  selector: string;
  save_as: string;
  attribute?: string;
  all?: boolean;
};

/**
 * Saves the text (trimmed, as rendered) or an attribute of the first matching element under
 * `save_as`; with `all`, a list with one entry per match. Null for an attribute an element lacks.
 */
export const extractStep = defineStepKind<ExtractAction>({
  schema: {
    type: "object",
    required: ["selector", "save_as"],
    properties: {
      selector,
      save_as: ref("identifier"),
      attribute: { ...text, description: "Reads this attribute instead of the text." },
      all: { type: "boolean", default: false, description: "Saves a list, one per match." },
    },
    additionalProperties: false,
  },
  browser: true,
  async run(action, context) {
    const selector = await context.render(action.selector);
    const attribute =
      action.attribute === undefined ? undefined : await context.render(action.attribute);
    const { page, timeout } = await stepPage(context, ELEMENT_TIMEOUT_MS);
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
  },
});
