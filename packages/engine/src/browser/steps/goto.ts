import { errors } from "playwright-core";
import { isHttpAddress } from "../../run/steps/http.js";
import type { StepRunner } from "../../run/steps/step-runner.js";
import { firstLine, withoutApiName } from "../error-text.js";
import { type BrowserAccess, formatWait, NAVIGATION_TIMEOUT_MS, stepPage } from "./step-page.js";

/**
 * Opens a URL (http or https only: a run must not read the server's files) and waits for the
 * page to load; gives `{ url, status }`, the address after redirects and the response status.
 */
export function gotoRunner(access: BrowserAccess): StepRunner<"goto"> {
  return async (action, context) => {
    const url = await context.render(typeof action === "string" ? action : action.url);
    if (!isHttpAddress(url)) throw new Error(`goto ${url}: not an http:// or https:// address`);
    const { page, timeout } = await stepPage(access, context, NAVIGATION_TIMEOUT_MS);
    try {
      const response = await page.goto(url, { timeout, signal: context.signal });
      return { url: page.url(), status: response?.status() ?? null };
    } catch (error) {
      if (context.signal.aborted) throw error;
      if (error instanceof errors.TimeoutError) {
        throw new Error(`goto ${url}: the page did not load within ${formatWait(timeout)}`);
      }
      // e.g. `page.goto: net::ERR_CONNECTION_REFUSED at http://…`
      throw new Error(`goto ${url} failed: ${withoutApiName(firstLine(error))}`);
    }
  };
}
