import type { BrowserAccess } from "../browser/browser-access.js";
import type { ExpressionScope } from "../expressions/evaluate.js";
import { type NetworkAccess, networkAccess } from "../network/network-access.js";
import { DataLimitExceeded, DEFAULT_ENGINE_LIMITS, type EngineLimits } from "./limits.js";
import type { EngineEvent, ExecuteSkillOptions, StepRef } from "./types.js";

/** An event before it is stamped with its time. */
export type Unstamped<E> = E extends unknown ? Omit<E, "at"> : never;

/** One execution's moving parts: its data, the results of finished steps, the clock and events. */
export interface Execution {
  readonly signal: AbortSignal;
  readonly browser: BrowserAccess | undefined;
  readonly limits: EngineLimits;
  /** Where the run may connect; its dispatcher is closed when the run ends. */
  readonly network: NetworkAccess;
  /** Replaced, never changed in place, so a value handed out stays as it was. */
  readonly data: Record<string, unknown>;
  /** Milliseconds, from `ExecuteSkillOptions.now`. */
  now(): number;
  /** Whole milliseconds since `start`. */
  since(start: number): number;
  emit(event: Unstamped<EngineEvent>): void;
  /** What expressions see right now. */
  scope(): ExpressionScope;
  /** Merges keys into the data and reports them; throws when the data would outgrow its limit. */
  save(step: StepRef, changes: Record<string, unknown>): void;
  /** Keeps a step's result as `steps.<id>`; steps without an id are not kept. */
  record(step: StepRef, result: unknown): void;
}

export function createExecution(options: ExecuteSkillOptions): Execution {
  const now = options.now ?? Date.now;
  const steps: Record<string, unknown> = {};
  let data: Record<string, unknown> = {};
  const limits = { ...DEFAULT_ENGINE_LIMITS, ...options.limits };
  const state: Execution = {
    signal: options.signal,
    browser: options.browser,
    limits,
    network: networkAccess(options.network),
    get data() {
      return data;
    },
    now,
    since: (start) => Math.round(now() - start),
    emit(event) {
      const { type, ...details } = event;
      options.onEvent({ type, at: new Date(now()).toISOString(), ...details } as EngineEvent);
    },
    scope: () => ({ inputs: options.inputs, data, steps, run: options.run }),
    save(step, changes) {
      const next = { ...data, ...changes };
      // Checked where data is written, so the step that would outgrow it is the one that fails.
      const bytes = Buffer.byteLength(JSON.stringify(next) ?? "");
      if (bytes > limits.dataBytes) throw new DataLimitExceeded(bytes, limits.dataBytes);
      data = next;
      state.emit({ type: "data_updated", step, changes });
    },
    record(step, result) {
      if (step.id !== undefined) steps[step.id] = result;
    },
  };
  return state;
}
