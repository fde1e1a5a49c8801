import type { Page } from "playwright-core";

/** What browser step kinds are given of the run's browser (see `StepContext.browser`). */
export interface BrowserAccess {
  /** The run's page; the first call launches the browser and rejects when that fails. */
  page(): Promise<Page>;
  /** Where screenshot steps write their files; without it they fail. */
  screenshotDir: string | undefined;
  /** 1, 2, … within the run, to number screenshot files. */
  nextScreenshotNumber(): number;
}
