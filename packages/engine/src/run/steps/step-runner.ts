import type { BROWSER_STEP_KINDS, PLAIN_STEP_KINDS } from "../../definition/step-kinds.js";
import type { Step, StepKind } from "../../definition/types.js";
import type { LogLevel, StepRef } from "../types.js";

/** Kinds this package runs itself. */
export type PlainStepKind = (typeof PLAIN_STEP_KINDS)[number];
/** Kinds that need a browser, run by `ExecuteSkillOptions.browser`. */
export type BrowserStepKind = (typeof BROWSER_STEP_KINDS)[number];

/** The action of a step of kind `K` as written, e.g. an `HttpRequest` for `http`. */
export type ActionOf<K extends StepKind> = Extract<Step, Record<K, unknown>>[K];

/** What a step runner is given besides its action. */
export interface StepContext {
  step: StepRef;
  /** Aborts when the run is aborted or the step's timeout passes; hand it to whatever waits. */
  signal: AbortSignal;
  /** The step's own `timeout` in ms, when it sets one: for runners whose waits have a default. */
  timeoutMs?: number;
  /** Resolves the templates in a value of the action against the run as it is now. */
  resolve(value: unknown): Promise<unknown>;
  /** Resolves the templates in a string to text, even when it is one `{{ expr }}`. */
  render(text: string): Promise<string>;
  /** Writes keys into the run's data; reported as a `data_updated` event. */
  save(changes: Record<string, unknown>): void;
  /** Reported as a `log` event. */
  log(level: LogLevel, message: string): void;
}

/**
 * Runs one attempt of a step from its action as written (templates unresolved). What it returns
 * becomes `steps.<id>`; throwing fails the attempt with the error's message.
 */
export type StepRunner<K extends StepKind> = (
  action: ActionOf<K>,
  context: StepContext,
) => Promise<unknown>;

/** Runners for browser steps, supplied by whatever drives the browser (and owns its lifetime). */
export type BrowserStepRunners = { [K in BrowserStepKind]?: StepRunner<K> };
