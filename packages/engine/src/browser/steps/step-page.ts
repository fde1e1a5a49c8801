import type { Page } from "playwright-core";
import { raceAbort } from "../../run/abort.js";
import type { StepContext } from "../../steps/step-context.js";
import type { BrowserAccess } from "../browser-access.js";

/** How long an element may take to appear or become ready when the step sets no timeout. */
export const ELEMENT_TIMEOUT_MS = 10_000;
/** How long a page may take to load when the step sets no timeout: real sites are slow. */
export const NAVIGATION_TIMEOUT_MS = 30_000;
/** Share of a step's own timeout kept back so the step's message wins over "step timed out". */
const MARGIN_SHARE = 0.1;
const MAX_MARGIN_MS = 500;

/** The page, and how long this step's browser calls may wait, in ms. */
export interface StepPage {
  page: Page;
  timeout: number;
}

/**
 * Gets the page for a step (launching the browser on the run's first browser step) and the time
 * its browser calls may take: `defaultMs`, or less when the step's own timeout ends sooner — then
 * a little before it, so the runner's message (which names the selector) is the one reported.
 */
export async function stepPage(context: StepContext, defaultMs: number): Promise<StepPage> {
  const access = browserOf(context);
  const started = Date.now();
  const page = await raceAbort(access.page(), context.signal);
  if (context.timeoutMs === undefined) return { page, timeout: defaultMs };
  const margin = Math.min(context.timeoutMs * MARGIN_SHARE, MAX_MARGIN_MS);
  // Starting the browser counts against the step's timeout; counted in whole tenths of a second
  // so that the wait a message reports does not vary by a millisecond from run to run.
  const spent = Math.floor((Date.now() - started) / 100) * 100;
  const left = Math.round(context.timeoutMs - margin - spent);
  return { page, timeout: Math.max(1, Math.min(defaultMs, left)) };
}

/** A wait as people say it: `900ms`, `10s`, `2.5s`. */
export function formatWait(ms: number): string {
  return ms < 1000 ? `${ms}ms` : `${Number((ms / 1000).toFixed(1))}s`;
}

/** The run's browser; a runner that gives none fails browser steps with this message. */
export function browserOf(context: StepContext): BrowserAccess {
  if (context.browser === undefined) {
    throw new Error(
      `browser steps are not available in this runner yet (step kind "${context.step.kind}")`,
    );
  }
  return context.browser;
}
