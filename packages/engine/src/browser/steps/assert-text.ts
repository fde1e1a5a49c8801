import { frame, selector } from "../../definition/schema-parts.js";
import { sleep } from "../../run/abort.js";
import { defineStepKind } from "../../steps/step-kind.js";
import { actOn } from "./act-on.js";
import { stepScope } from "./element-scope.js";
import { ELEMENT_TIMEOUT_MS, formatWait } from "./step-page.js";

export type AssertTextAction = { selector: string; text: string; frame?: string };

/** How often the text is read again while it does not match yet. */
const POLL_MS = 100;
/** How much of the element's text a failure quotes. */
const QUOTED_CHARS = 200;

/**
 * Passes once the first matching element's text contains `text` (white space runs compared as
 * one space), read again until the wait runs out so a page still updating can catch up; gives
 * the text. A failure quotes what the element says.
 */
export const assertTextStep = defineStepKind<AssertTextAction>({
  schema: {
    type: "object",
    required: ["selector", "text"],
    properties: {
      selector,
      text: { type: "string", description: "Text the element's text must contain." },
      frame,
    },
    additionalProperties: false,
  },
  browser: true,
  async run(action, context) {
    const selector = await context.render(action.selector);
    const expected = await context.render(action.text);
    const { scope, timeout } = await stepScope(context, ELEMENT_TIMEOUT_MS, action.frame);
    const target = scope.locator(selector).first();
    context.detail(`${scope.name(selector)} contains ${context.preview(expected)}`);
    const deadline = Date.now() + timeout;
    const mismatch = (text: string) =>
      new Error(
        `${scope.name(selector)} does not contain ${JSON.stringify(expected)} (waited ${formatWait(timeout)}); its text is ${quote(text)}`,
      );
    // The last text read: when a later read runs out of time (a slow page, a busy machine), the
    // mismatch seen is the failure to report, not the read that could not finish.
    let seen: string | undefined;
    for (;;) {
      const left = Math.max(1, deadline - Date.now());
      let text: string;
      try {
        text = await actOn(context, scope, selector, "read", timeout, () =>
          // biome-ignore lint/performance/useDomNodeTextContent: a Playwright locator; the rendered text is what a person sees
          target.innerText({ timeout: left, signal: context.signal }),
        );
      } catch (error) {
        if (seen === undefined || context.signal.aborted) throw error;
        throw mismatch(seen);
      }
      if (squeeze(text).includes(squeeze(expected))) return text.trim();
      seen = text;
      if (Date.now() + POLL_MS >= deadline) throw mismatch(text);
      await sleep(POLL_MS, context.signal);
    }
  },
});

function squeeze(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function quote(text: string): string {
  const squeezed = squeeze(text);
  return JSON.stringify(
    squeezed.length > QUOTED_CHARS ? `${squeezed.slice(0, QUOTED_CHARS)}…` : squeezed,
  );
}
