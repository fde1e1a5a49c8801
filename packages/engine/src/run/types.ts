import type { BrowserAccess } from "../browser/browser-access.js";
import type { SkillDefinition } from "../definition/types.js";
import type { NetworkPolicy } from "../network/policy.js";
import type { StepKind } from "../steps/registry.js";
import type { EngineLimits } from "./limits.js";

/** Which step an event or error is about. */
export interface StepRef {
  /** 0-based position in `steps`. */
  index: number;
  /** The step's `id`, when the definition gives one. */
  id?: string;
  kind: StepKind;
  /** How people are told about the step: its `id`, else `step <index + 1> (<kind>)`. */
  label: string;
}

export type LogLevel = "debug" | "info" | "warn" | "error";

/**
 * What the engine reports while it runs a skill, in the order it happens. `at` is an RFC 3339
 * timestamp; durations are whole milliseconds.
 */
export type EngineEvent =
  | { type: "run_started"; at: string }
  | { type: "step_started"; at: string; step: StepRef; attempt: number }
  | { type: "step_finished"; at: string; step: StepRef; attempt: number; duration_ms: number }
  /** The step's `if` was false. */
  | { type: "step_skipped"; at: string; step: StepRef }
  /** One attempt failed; `will_retry` tells whether another follows. */
  | {
      type: "step_failed";
      at: string;
      step: StepRef;
      attempt: number;
      duration_ms: number;
      message: string;
      will_retry: boolean;
    }
  | { type: "log"; at: string; step: StepRef; level: LogLevel; message: string }
  /** `changes` holds the keys the step wrote into `data`, with their new values. */
  | { type: "data_updated"; at: string; step: StepRef; changes: Record<string, unknown> }
  | { type: "run_finished"; at: string; duration_ms: number }
  | { type: "run_failed"; at: string; duration_ms: number; error: StepError }
  /** The signal was aborted; `reason` is the signal's reason as given. */
  | { type: "run_aborted"; at: string; duration_ms: number; step?: StepRef; reason: unknown };

/** Why a run failed: `data.error` of a run that ends in `reset`. */
export interface StepError {
  /** The step's label (see StepRef); null when the run failed before any step. */
  step: string | null;
  message: string;
}

/** How a skill execution ended. `data` is the run's data at that moment. */
export type ExecutionResult =
  | { outcome: "finished"; data: Record<string, unknown> }
  /** `step` is the failing step (absent when the run failed before any step). */
  | { outcome: "failed"; data: Record<string, unknown>; error: StepError; step?: StepRef }
  /** The signal was aborted (cancel, time limit, shutdown: the caller knows which). */
  | { outcome: "aborted"; data: Record<string, unknown>; step?: StepRef; reason: unknown };

/** What expressions see as `run`. */
export interface RunInfo {
  id: string;
  skill_id: string;
  owner?: string;
  /** 1 for the first execution, 2 after a re-queue. */
  attempt?: number;
}

export interface ExecuteSkillOptions {
  definition: SkillDefinition;
  /** Checked and converted already, defaults applied. */
  inputs: Record<string, unknown>;
  run: RunInfo;
  /** Aborting stops the run within the step under way (waits, HTTP calls) and between steps. */
  signal: AbortSignal;
  /** Called synchronously for each event; must not throw. */
  onEvent: (event: EngineEvent) => void;
  /** Clock for event timestamps and durations; `Date.now` by default. */
  now?: () => number;
  /**
   * The run's browser, for browser steps (goto, click, …); a run reaching a browser step without
   * one fails. Opening and closing the browser is the supplier's business.
   */
  browser?: BrowserAccess;
  /** What the run may produce; DEFAULT_ENGINE_LIMITS for what is not given. */
  limits?: Partial<EngineLimits>;
  /**
   * Where http steps may connect (the browser takes its own, see RunBrowserOptions.network);
   * nothing private by default.
   */
  network?: NetworkPolicy;
}
