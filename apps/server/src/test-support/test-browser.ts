import { findChromium } from "@skillrun/engine";
import { type Browser, chromium } from "playwright-core";

/**
 * Debian's Chromium (CHROMIUM_PATH, else the system's), headless, for tests that drive a page
 * themselves (the demo back office, the dashboard): nothing that calls home or updates itself.
 */
export function launchTestBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: findChromium(process.env),
    headless: true,
    args: [
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}
