import { frame, selector } from "../../definition/schema-parts.js";
import { defineStepKind } from "../../steps/step-kind.js";
import { isTimeoutError } from "../timeout-error.js";
import { stepScope } from "./element-scope.js";
import { missingElement, selectorFailure } from "./failures.js";
import { ELEMENT_TIMEOUT_MS, formatWait } from "./step-page.js";

export type ElementState = "visible" | "hidden" | "attached" | "detached";

export type WaitForAction = { selector: string; state?: ElementState; frame?: string };

/** Waits until the first element matching the selector is visible (or hidden, attached, detached). */
export const waitForStep = defineStepKind<WaitForAction>({
  schema: {
    type: "object",
    required: ["selector"],
    properties: {
      selector,
      state: { enum: ["visible", "hidden", "attached", "detached"], default: "visible" },
      frame,
    },
    additionalProperties: false,
  },
  browser: true,
  async run(action, context) {
    const selector = await context.render(action.selector);
    const state = action.state ?? "visible";
    const { scope, timeout } = await stepScope(context, ELEMENT_TIMEOUT_MS, action.frame);
    context.detail(`${scope.name(selector)} ${state}`);
    const target = scope.locator(selector).first();
    try {
      await target.waitFor({ state, timeout, signal: context.signal });
    } catch (error) {
      if (context.signal.aborted) throw error;
      if (!isTimeoutError(error)) {
        throw await selectorFailure(error, scope, selector, "wait for", timeout);
      }
      // Waiting to be visible or attached times out on an absent element, which deserves saying.
      const missing = await missingElement(scope, selector, timeout);
      if (missing !== undefined) throw missing;
      throw new Error(
        `${scope.name(selector)} did not become ${state} within ${formatWait(timeout)}`,
      );
    }
    return null;
  },
});
