import type { BrowserAccess } from "../browser/browser-access.js";
import type { SkillDefinition, Step } from "../definition/types.js";
import type { RunFiles } from "../files/run-files.js";
import type { NetworkAccess } from "../network/network-access.js";
import type { EngineLimits } from "../run/limits.js";
import type { LogLevel, StepRef } from "../run/types.js";

/** What one attempt of a step is given besides its action. */
export interface StepContext {
  step: StepRef;
  /** Aborts when the run is aborted or the step's timeout passes; hand it to whatever waits. */
  signal: AbortSignal;
  /** The W3C `traceparent` of this attempt's span when the run is traced: requests send it. */
  traceparent?: string;
  /** The step's own `timeout` in ms, when it sets one: for runners whose waits have a default. */
  timeoutMs?: number;
  /** What the run may produce (response sizes, data). */
  limits: EngineLimits;
  /** Where the run may connect: every request a step makes goes through it. */
  network: NetworkAccess;
  /** The run's files; absent where the runner keeps none. */
  files?: RunFiles;
  /** The run's browser, opened on first use; absent where the runner has none. */
  browser?: BrowserAccess;
  /** Resolves the templates in a value of the action against the run as it is now. */
  resolve(value: unknown): Promise<unknown>;
  /** Resolves the templates in a string to text, even when it is one `{{ expr }}`. */
  render(text: string): Promise<string>;
  /** Writes keys into the run's data; reported as a `data_updated` event. */
  save(changes: Record<string, unknown>): void;
  /** Writes scratch variables (`vars.<name>`), which are never part of the run's data. */
  setVars(changes: Record<string, unknown>): void;
  /** Saves a value where a `save_as` says: `name` is `data.name`, `vars.name` a variable. */
  saveAs(target: string, value: unknown): void;
  /**
   * Says what the step's own timeout means while `describe` is set (until set to undefined):
   * a browser step names the selector it was waiting on rather than "step timed out".
   */
  explainTimeout(describe: (() => string) | undefined): void;
  /**
   * Pauses the run until a client answers (an `ask`), giving the answer; the step's signal still
   * applies. Fails where nothing could answer.
   */
  ask(question: {
    prompt: string;
    schema: Record<string, unknown>;
    timeoutMs: number;
  }): Promise<unknown>;
  /** Reported as a `log` event. */
  log(level: LogLevel, message: string): void;
  /**
   * Says in a few words what the step acts on or made (its selector, the URL and status, a file
   * and its size, a preview of a value), so the step log reads without the definition beside
   * it: the attempt's `step_finished` or `step_failed` event carries the last one said, secret
   * values masked, cut to DETAIL_MAX_CHARS (run/step-detail.ts). Say it as soon as it is known,
   * so a failure carries it too.
   */
  detail(text: string): void;
  /** A value as a detail shows it: JSON, secret values masked, cut to PREVIEW_MAX_CHARS. */
  preview(value: unknown): string;
  /** How many calls deep the step's skill runs: 0 for the run's own skill. */
  callDepth: number;
  /** A skill this run may `call`, or undefined. */
  skill(id: string): SkillDefinition | undefined;
  /** Evaluates a condition written as `if` is (bare, or one `{{ }}`) against the run now. */
  holds(condition: string): Promise<boolean>;
  /**
   * Where a resumed run goes on inside this block step (a loop's round, from 1, and a
   * `for_each`'s items as first resolved); absent when the step begins afresh.
   */
  resumed?: { round?: number; items?: unknown[]; until?: string };
  /**
   * Tells the run's supplier that the step now waits, doing nothing, until `until` (epoch ms):
   * a long wait may be parked (ExecuteSkillOptions.onWait).
   */
  waiting?(until: number): void;
  /**
   * Runs a block's steps (a loop's body) with this step's signal, labelled after this step and
   * the iteration (`pages #2 › page`); throws when one of them fails, naming it. `items`: a
   * `for_each`'s list, kept in checkpoints taken inside so that a resume need not resolve it.
   */
  runSteps(steps: Step[], iteration?: number, items?: unknown[]): Promise<void>;
  /**
   * Runs another skill inside this run (same browser) with its own inputs, data and vars,
   * labelled after this step's id or the skill's (`login › step 2 (fill)`); gives its output
   * (or its data). Throws when one of its steps fails.
   */
  runSkill(
    definition: SkillDefinition,
    inputs: Record<string, unknown>,
  ): Promise<Record<string, unknown>>;
}
