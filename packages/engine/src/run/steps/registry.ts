import type { StepKind } from "../../definition/types.js";
import { runHttp } from "./http.js";
import { runLog } from "./log.js";
import { runSet } from "./set.js";
import type { BrowserStepRunners, PlainStepKind, StepContext, StepRunner } from "./step-runner.js";
import { runWait } from "./wait.js";

const PLAIN_RUNNERS: { [K in PlainStepKind]: StepRunner<K> } = {
  set: runSet,
  log: runLog,
  wait: runWait,
  http: runHttp,
};

/** A runner taking any action: the engine hands each runner the action of its own kind. */
export type AnyStepRunner = (action: unknown, context: StepContext) => Promise<unknown>;

/** The runner for a kind: a plain one, else one of `browser`; undefined when there is none. */
export function runnerFor(
  kind: StepKind,
  browser: BrowserStepRunners | undefined,
): AnyStepRunner | undefined {
  const runners: Partial<Record<StepKind, unknown>> = { ...browser, ...PLAIN_RUNNERS };
  return runners[kind] as AnyStepRunner | undefined;
}

/** Stands in for a browser step no runner was given for. */
export function unavailableRunner(kind: StepKind): AnyStepRunner {
  return async () => {
    throw new Error(`browser steps are not available in this runner yet (step kind "${kind}")`);
  };
}
