import { raceAbort, withTimeout } from "../run/abort.js";
import type { Execution } from "../run/execution.js";
import { formatBytes } from "../run/limits.js";
import type { StepRef } from "../run/types.js";
import { firstLine, withoutApiName } from "./error-text.js";
import { fileLabel } from "./steps/screenshot.js";

/** How long taking and keeping a failed step's screenshot may take: a hung page gets no more. */
export const FAILURE_SCREENSHOT_TIMEOUT_MS = 5_000;

/** Largest failure screenshot kept; a viewport's PNG is far smaller (a few hundred KB). */
export const FAILURE_SCREENSHOT_MAX_BYTES = 8 * 1024 * 1024;

/**
 * Keeps a PNG of the current tab's viewport as the run file `failed-<step label>.png` after a
 * browser step failed (docs/decisions/0059-step-detail.md), and gives its name. It is the
 * failure's evidence, never a failure of its own: when the browser never started, the run keeps
 * no files, the page does not answer within FAILURE_SCREENSHOT_TIMEOUT_MS or the run's file
 * quota is full, a warning says so and nothing is given. Counted against the run's files like
 * any other.
 */
export async function failureScreenshot(ref: StepRef, run: Execution): Promise<string | undefined> {
  const { browser, files } = run;
  if (browser === undefined || files === undefined || !browser.started() || run.signal.aborted) {
    return undefined;
  }
  const timed = withTimeout(
    run.signal,
    FAILURE_SCREENSHOT_TIMEOUT_MS,
    () => new Error(`the page did not answer within ${FAILURE_SCREENSHOT_TIMEOUT_MS / 1000}s`),
  );
  try {
    const work = (async () => {
      const page = await browser.page();
      // Playwright takes no abort signal for screenshots: the race bounds it.
      const png = await page.screenshot({ type: "png", timeout: FAILURE_SCREENSHOT_TIMEOUT_MS });
      if (png.byteLength > FAILURE_SCREENSHOT_MAX_BYTES) {
        throw new Error(
          `it is ${formatBytes(png.byteLength)}, more than ${formatBytes(FAILURE_SCREENSHOT_MAX_BYTES)}`,
        );
      }
      return files.write(`failed-${fileLabel(ref.label)}.png`, png, "image/png");
    })();
    const stored = await raceAbort(work, timed.signal);
    return stored.name;
  } catch (error) {
    if (run.signal.aborted) return undefined;
    const why = withoutApiName(firstLine(error));
    run.emit({
      type: "log",
      step: ref,
      level: "warn",
      message: `no screenshot of the failed step was kept: ${why}`,
    });
    return undefined;
  } finally {
    timed.dispose();
  }
}
