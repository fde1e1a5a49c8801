import { frame, selector } from "../../definition/schema-parts.js";
import { defineStepKind } from "../../steps/step-kind.js";
import { actOn } from "./act-on.js";
import { stepScope } from "./element-scope.js";
import { ELEMENT_TIMEOUT_MS } from "./step-page.js";

export type ScrollAction = { selector?: string; frame?: string } | null;

/** The little of a document this reads (the engine is compiled without the DOM's types). */
interface PageRoot {
  ownerDocument: {
    scrollingElement: { scrollHeight: number } | null;
    defaultView: { scrollTo(x: number, y: number): void } | null;
  };
}

/**
 * Scrolls the first matching element into view, or without a selector to the bottom of the page
 * (of the frame's document with `frame`): what makes lazily loaded content appear.
 */
export const scrollStep = defineStepKind<ScrollAction>({
  schema: {
    type: ["object", "null"],
    properties: { selector, frame },
    additionalProperties: false,
    description: "Nothing (the bottom of the page), or { selector?, frame? }.",
  },
  browser: true,
  async run(action, context) {
    const selector =
      action?.selector === undefined ? undefined : await context.render(action.selector);
    const { scope, timeout } = await stepScope(context, ELEMENT_TIMEOUT_MS, action?.frame);
    context.detail(selector === undefined ? "to the bottom" : scope.name(selector));
    if (selector !== undefined) {
      await actOn(context, scope, selector, "scroll to", timeout, () =>
        scope.locator(selector).first().scrollIntoViewIfNeeded({ timeout, signal: context.signal }),
      );
      return null;
    }
    await actOn(context, scope, ":root", "scroll to the bottom of", timeout, () =>
      scope.locator(":root").evaluate(
        (root: PageRoot) => {
          const { scrollingElement, defaultView } = root.ownerDocument;
          defaultView?.scrollTo(0, scrollingElement?.scrollHeight ?? 0);
        },
        undefined,
        { timeout },
      ),
    );
    return null;
  },
});
