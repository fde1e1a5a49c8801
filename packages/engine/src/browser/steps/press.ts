import { frame, selector, text } from "../../definition/schema-parts.js";
import { raceAbort } from "../../run/abort.js";
import { defineStepKind } from "../../steps/step-kind.js";
import { firstLine, withoutApiName } from "../error-text.js";
import { actOn } from "./act-on.js";
import { stepScope } from "./element-scope.js";
import { ELEMENT_TIMEOUT_MS } from "./step-page.js";

export type PressAction = { selector?: string; key: string; frame?: string };

/** Presses a key or chord (`Enter`, `Control+A`) on the first matching element, or on the page. */
export const pressStep = defineStepKind<PressAction>({
  schema: {
    type: "object",
    required: ["key"],
    properties: {
      selector,
      key: { ...text, description: "A key name such as Enter, or a chord such as Control+A." },
      frame,
    },
    additionalProperties: false,
    // The keyboard alone goes to whatever has focus; a frame says where to find the element.
    dependentRequired: { frame: ["selector"] },
    description: "Presses a key on the element, or on the page when no selector is given.",
  },
  browser: true,
  async run(action, context) {
    const key = await context.render(action.key);
    const selector =
      action.selector === undefined ? undefined : await context.render(action.selector);
    const { page, scope, timeout } = await stepScope(context, ELEMENT_TIMEOUT_MS, action.frame);
    context.detail(selector === undefined ? key : `${key} on ${scope.name(selector)}`);
    if (selector === undefined) {
      // The keyboard goes to whatever has focus and waits for nothing, so it takes no timeout.
      await raceAbort(page.keyboard.press(key), context.signal).catch((error: unknown) => {
        if (context.signal.aborted) throw error;
        throw new Error(`could not press ${key}: ${withoutApiName(firstLine(error))}`);
      });
      return null;
    }
    await actOn(context, scope, selector, `press ${key} on`, timeout, () =>
      scope.locator(selector).first().press(key, { timeout, signal: context.signal }),
    );
    return null;
  },
});
