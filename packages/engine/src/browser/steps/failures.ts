import { errors, type Page } from "playwright-core";
import { firstLine, withoutApiName } from "../error-text.js";
import { formatWait } from "./step-page.js";

/** Playwright's call log names the last obstacle, e.g. `- element is not enabled`. */
const OBSTACLE = /^\s*-\s*(element is .+|element was .+)$/;
/** Playwright colours its call log when it thinks a terminal will show it. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching terminal colour codes is the point
const COLOUR = /\u001b\[[0-9;]*m/g;

/**
 * Explains why acting on `selector` failed, always naming it: no element matched within the
 * wait, the element never became ready (and why), or what Playwright said.
 */
export async function selectorFailure(
  error: unknown,
  page: Page,
  selector: string,
  doing: string,
  timeout: number,
): Promise<Error> {
  if (error instanceof errors.TimeoutError) {
    const matches = await page
      .locator(selector)
      .count()
      .catch(() => undefined);
    if (matches === 0) return noMatch(selector, timeout);
    const obstacle = error.message
      .replace(COLOUR, "")
      .split("\n")
      .map((line) => OBSTACLE.exec(line)?.[1])
      .filter((found) => found !== undefined)
      .at(-1);
    const why = obstacle === undefined ? "" : ` (${obstacle})`;
    return new Error(`could not ${doing} "${selector}" within ${formatWait(timeout)}${why}`);
  }
  return new Error(`could not ${doing} "${selector}": ${withoutApiName(firstLine(error))}`);
}

/** The message of a selector that matched nothing. */
export function noMatch(selector: string, timeout: number): Error {
  return new Error(`no element matches "${selector}" (waited ${formatWait(timeout)})`);
}
