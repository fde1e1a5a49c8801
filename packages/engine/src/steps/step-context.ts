import type { BrowserAccess } from "../browser/browser-access.js";
import type { NetworkAccess } from "../network/network-access.js";
import type { EngineLimits } from "../run/limits.js";
import type { LogLevel, StepRef } from "../run/types.js";

/** What one attempt of a step is given besides its action. */
export interface StepContext {
  step: StepRef;
  /** Aborts when the run is aborted or the step's timeout passes; hand it to whatever waits. */
  signal: AbortSignal;
  /** The step's own `timeout` in ms, when it sets one: for runners whose waits have a default. */
  timeoutMs?: number;
  /** What the run may produce (response sizes, data). */
  limits: EngineLimits;
  /** Where the run may connect: every request a step makes goes through it. */
  network: NetworkAccess;
  /** The run's browser, opened on first use; absent where the runner has none. */
  browser?: BrowserAccess;
  /** Resolves the templates in a value of the action against the run as it is now. */
  resolve(value: unknown): Promise<unknown>;
  /** Resolves the templates in a string to text, even when it is one `{{ expr }}`. */
  render(text: string): Promise<string>;
  /** Writes keys into the run's data; reported as a `data_updated` event. */
  save(changes: Record<string, unknown>): void;
  /**
   * Says what the step's own timeout means while `describe` is set (until set to undefined):
   * a browser step names the selector it was waiting on rather than "step timed out".
   */
  explainTimeout(describe: (() => string) | undefined): void;
  /** Reported as a `log` event. */
  log(level: LogLevel, message: string): void;
}
