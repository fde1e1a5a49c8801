import type { Config } from "../config.js";

/**
 * What the configuration says about runs' browsers (CHROMIUM_USER, BROWSER_MEMORY_MB,
 * WARM_BROWSERS).
 */
export interface BrowserSettings {
  /** The user Chromium runs as when the worker runs as root. */
  user: string;
  /** Most memory one run's browser may use, in bytes. */
  memoryLimitBytes: number;
  /** Whether run processes keep a browser launched ahead for their next run. */
  warm: boolean;
}

export function browserSettingsOf(config: Config): BrowserSettings {
  return {
    user: config.CHROMIUM_USER,
    memoryLimitBytes: config.BROWSER_MEMORY_MB * 1024 * 1024,
    warm: config.WARM_BROWSERS,
  };
}
