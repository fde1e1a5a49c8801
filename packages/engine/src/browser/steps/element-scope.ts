import type { Locator, Page } from "playwright-core";
import type { StepContext } from "../../steps/step-context.js";
import { type StepPage, stepPage } from "./step-page.js";

/**
 * Where an element step looks for its selector: the current tab's page, or the document inside
 * one of its iframes (the step's `frame`, a selector of the `<iframe>` element; the first match).
 * Every element step goes through here, so `frame` means the same to all of them.
 */
export interface ElementScope {
  page: Page;
  /** The iframe's selector as rendered, when the step acts inside one. */
  frame: string | undefined;
  /** The elements matching `selector` in the scope; inside a frame, its iframe is waited for too. */
  locator(selector: string): Locator;
  /** How messages name a selector: `"#card"`, or `"#card" in frame "#checkout"`. */
  name(selector: string): string;
}

/** The scope of `frame` (none: the page itself). */
export function elementScope(page: Page, frame: string | undefined): ElementScope {
  if (frame === undefined) {
    return { page, frame, locator: (selector) => page.locator(selector), name: quoted };
  }
  const inside = page.locator(frame).first().contentFrame();
  return {
    page,
    frame,
    locator: (selector) => inside.locator(selector),
    name: (selector) => `${quoted(selector)} in frame ${quoted(frame)}`,
  };
}

/**
 * The page and wait of `stepPage`, with the scope the step's `frame` (templates rendered) names.
 */
export async function stepScope(
  context: StepContext,
  defaultMs: number,
  frame: string | undefined,
): Promise<StepPage & { scope: ElementScope }> {
  const rendered = frame === undefined ? undefined : await context.render(frame);
  const { page, timeout } = await stepPage(context, defaultMs);
  return { page, timeout, scope: elementScope(page, rendered) };
}

function quoted(selector: string): string {
  return `"${selector}"`;
}
