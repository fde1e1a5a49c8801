import type { Page } from "playwright-core";
import { firstLine, withoutApiName } from "../error-text.js";
import { isTimeoutError } from "../timeout-error.js";
import { type ElementScope, elementScope } from "./element-scope.js";
import { formatWait } from "./step-page.js";

/** Playwright's call log names the last obstacle, e.g. `- element is not enabled`. */
const OBSTACLE = /^\s*-\s*(element is .+|element was .+)$/;
/** Playwright colours its call log when it thinks a terminal will show it. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching terminal colour codes is the point
const COLOUR = /\u001b\[[0-9;]*m/g;

/**
 * Explains why acting on `selector` failed, always naming it (and its frame): no element (or no
 * iframe) matched within the wait, the element never became ready (and why), or what Playwright
 * said. `where` is the step's scope, or a page for the page itself.
 */
export async function selectorFailure(
  error: unknown,
  where: Page | ElementScope,
  selector: string,
  doing: string,
  timeout: number,
): Promise<Error> {
  const scope = scopeOf(where);
  if (isTimeoutError(error)) {
    const missing = await missingElement(scope, selector, timeout);
    if (missing !== undefined) return missing;
    const obstacle = error.message
      .replace(COLOUR, "")
      .split("\n")
      .map((line) => OBSTACLE.exec(line)?.[1])
      .filter((found) => found !== undefined)
      .at(-1);
    const why = obstacle === undefined ? "" : ` (${obstacle})`;
    return new Error(
      `could not ${doing} ${scope.name(selector)} within ${formatWait(timeout)}${why}`,
    );
  }
  return new Error(
    `could not ${doing} ${scope.name(selector)}: ${withoutApiName(firstLine(error))}`,
  );
}

/**
 * The error of an element that is not there after the wait: its frame's iframe first, then the
 * element itself; undefined when both are (or the page cannot tell).
 */
export async function missingElement(
  scope: ElementScope,
  selector: string,
  timeout: number,
): Promise<Error | undefined> {
  if (scope.frame !== undefined) {
    const frames = await scope.page
      .locator(scope.frame)
      .count()
      .catch(() => undefined);
    if (frames === 0) {
      return new Error(`no iframe matches "${scope.frame}" (waited ${formatWait(timeout)})`);
    }
  }
  const matches = await scope
    .locator(selector)
    .count()
    .catch(() => undefined);
  return matches === 0 ? noMatch(selector, timeout, scope) : undefined;
}

/** The message of a selector that matched nothing (in the page, or in the scope's frame). */
export function noMatch(selector: string, timeout: number, scope?: ElementScope): Error {
  const named = scope?.name(selector) ?? `"${selector}"`;
  return new Error(`no element matches ${named} (waited ${formatWait(timeout)})`);
}

/** The scope a step acts in; a page stands for itself, without a frame. */
export function scopeOf(where: Page | ElementScope): ElementScope {
  return isScope(where) ? where : elementScope(where, undefined);
}

function isScope(where: Page | ElementScope): where is ElementScope {
  return "frame" in where && "page" in where && typeof where.name === "function";
}
