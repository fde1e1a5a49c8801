import type { Response } from "playwright-core";
import { text } from "../../definition/schema-parts.js";
import { REFUSED_HEADER } from "../../network/browser-proxy.js";
import { NetworkRefused } from "../../network/guard.js";
import { isHttpAddress } from "../../steps/http.js";
import { defineStepKind } from "../../steps/step-kind.js";
import { firstLine, withoutApiName } from "../error-text.js";
import { isTimeoutError } from "../timeout-error.js";
import { formatWait, NAVIGATION_TIMEOUT_MS, stepPage } from "./step-page.js";

export type GotoAction = string | { url: string; expect_status?: ExpectedPageStatus };

/** The statuses a `goto` accepts: one, a list, or `any`. */
export type ExpectedPageStatus = number | number[] | "any";

/**
 * Opens a URL (http or https only: a run must not read the server's files) and waits for the
 * page to load; gives `{ url, status }`, the address after redirects and the response status.
 * A status of 400 or more fails the step unless `expect_status` allows it: an error page is
 * not the page the skill goes on to act on, and failing here names the cause.
 */
export const gotoStep = defineStepKind<GotoAction>({
  schema: {
    type: ["string", "object"],
    minLength: 1,
    required: ["url"],
    properties: {
      url: text,
      expect_status: {
        type: ["integer", "array", "string"],
        minimum: 100,
        maximum: 599,
        minItems: 1,
        items: { type: "integer", minimum: 100, maximum: 599 },
        pattern: "^any$",
        description: "The accepted status, a list of them, or `any`; absent: any status below 400.",
      },
    },
    additionalProperties: false,
    description: "A URL, or { url, expect_status }.",
  },
  browser: true,
  async run(action, context) {
    const url = await context.render(typeof action === "string" ? action : action.url);
    const expected = typeof action === "string" ? undefined : action.expect_status;
    context.detail(url);
    if (!isHttpAddress(url)) throw new Error(`goto ${url}: not an http:// or https:// address`);
    // Said plainly here; the browser's proxy holds every later request (redirects, subresources)
    // to the same policy. A name that does not resolve is left to the browser to report.
    const refused = await context.network.guard.checkUrl(url).then(
      () => undefined,
      (error: unknown) => (error instanceof NetworkRefused ? error : undefined),
    );
    if (refused !== undefined) throw new Error(`goto ${url} refused: ${refused.message}`);
    const { page, timeout } = await stepPage(context, NAVIGATION_TIMEOUT_MS);
    let response: Response | null;
    try {
      response = await page.goto(url, { timeout, signal: context.signal });
    } catch (error) {
      if (context.signal.aborted) throw error;
      if (isTimeoutError(error)) {
        throw new Error(`goto ${url}: the page did not load within ${formatWait(timeout)}`);
      }
      // e.g. `page.goto: net::ERR_CONNECTION_REFUSED at http://…`
      const reason = withoutApiName(firstLine(error));
      if (/^Download is starting/i.test(reason)) {
        throw new Error(
          `goto ${url}: the address answers with a file to download, not a page; use download: { url: "${url}" } to keep it as a run file`,
        );
      }
      throw new Error(`goto ${url} failed: ${reason}`);
    }
    // A redirect to where the network policy forbids: the browser's proxy answered instead.
    const refusal = response?.headers()[REFUSED_HEADER];
    if (refusal !== undefined)
      throw new Error(`goto ${url} refused: ${decodeURIComponent(refusal)}`);
    // No response: a navigation within the page (a `#fragment`), which has no status to judge.
    const status = response?.status() ?? null;
    if (status !== null && !pageStatusAccepted(status, expected)) {
      throw new Error(
        `goto ${url}: HTTP ${status} (expected ${describeExpected(expected)}); add expect_status: [${status}] (or any) to the step when this page is what it wants`,
      );
    }
    const result = { url: page.url(), status };
    context.detail(`${result.url} → ${result.status ?? "no response"}`);
    return result;
  },
});

/** Whether a page's status is what the step accepts: below 400 unless `expected` says. */
export function pageStatusAccepted(status: number, expected: ExpectedPageStatus | undefined) {
  if (expected === undefined) return status < 400;
  if (expected === "any") return true;
  return [expected].flat().includes(status);
}

function describeExpected(expected: ExpectedPageStatus | undefined): string {
  if (expected === undefined) return "a status below 400";
  return [expected].flat().join(" or ");
}
