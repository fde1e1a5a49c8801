import { errors } from "playwright-core";
import { selector } from "../../definition/schema-parts.js";
import { defineStepKind } from "../../steps/step-kind.js";
import { noMatch, selectorFailure } from "./failures.js";
import { ELEMENT_TIMEOUT_MS, formatWait, stepPage } from "./step-page.js";

export type ElementState = "visible" | "hidden" | "attached" | "detached";

export type WaitForAction = { selector: string; state?: ElementState };

/** Waits until the first element matching the selector is visible (or hidden, attached, detached). */
export const waitForStep = defineStepKind<WaitForAction>({
  schema: {
    type: "object",
    required: ["selector"],
    properties: {
      selector,
      state: { enum: ["visible", "hidden", "attached", "detached"], default: "visible" },
    },
    additionalProperties: false,
  },
  browser: true,
  async run(action, context) {
    const selector = await context.render(action.selector);
    const state = action.state ?? "visible";
    const { page, timeout } = await stepPage(context, ELEMENT_TIMEOUT_MS);
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
  },
});
