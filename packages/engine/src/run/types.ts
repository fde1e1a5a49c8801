import type { BrowserAccess } from "../browser/browser-access.js";
import type { SkillDefinition } from "../definition/types.js";
import type { RunFiles } from "../files/run-files.js";
import type { NetworkPolicy } from "../network/policy.js";
import type { StepKind } from "../steps/registry.js";
import type { Checkpoint } from "./checkpoint.js";
import type { EngineLimits } from "./limits.js";
import type { SecretMask } from "./secret-mask.js";

/** Which step an event or error is about. */
export interface StepRef {
  /** 0-based position in its own `steps` list (the skill's, a loop's, a called skill's). */
  index: number;
  /** The step's `id`, when the definition gives one. */
  id?: string;
  kind: StepKind;
  /**
   * How people are told about the step: its `id`, else `step <index + 1> (<kind>)`; a nested
   * step's label starts with its blocks', e.g. `pages #2 › page` or `login › step 2 (fill)`.
   */
  label: string;
}

export type LogLevel = "debug" | "info" | "warn" | "error";

/**
 * Where a step event happened in the run's video: milliseconds since its first frame, so a player
 * can jump to the step. Absent without a video, and before the browser has started.
 */
export interface VideoOffset {
  video_offset_ms?: number;
}

/**
 * What the step acted on or made, in a few words (run/step-detail.ts): absent when the step said
 * nothing before it ended.
 */
export interface StepDetail {
  detail?: string;
}

/**
 * What the engine reports while it runs a skill, in the order it happens. `at` is an RFC 3339
 * timestamp; durations are whole milliseconds. Events about a step carry a `VideoOffset`.
 */
export type EngineEvent =
  | { type: "run_started"; at: string }
  | ({ type: "step_started"; at: string; step: StepRef; attempt: number } & VideoOffset)
  | ({
      type: "step_finished";
      at: string;
      step: StepRef;
      attempt: number;
      duration_ms: number;
    } & VideoOffset &
      StepDetail)
  /** The step's `if` was false. */
  | ({ type: "step_skipped"; at: string; step: StepRef } & VideoOffset)
  /** One attempt failed; `will_retry` tells whether another follows. */
  | ({
      type: "step_failed";
      at: string;
      step: StepRef;
      attempt: number;
      duration_ms: number;
      message: string;
      will_retry: boolean;
      /**
       * The run file showing the page as the step failed (`failed-<step>.png`): a browser
       * step's last attempt, when the screenshot could be saved.
       */
      file?: string;
    } & VideoOffset &
      StepDetail)
  | ({ type: "log"; at: string; step: StepRef; level: LogLevel; message: string } & VideoOffset)
  /** `changes` holds the keys the step wrote into `data`, with their new values. */
  | ({
      type: "data_updated";
      at: string;
      step: StepRef;
      changes: Record<string, unknown>;
    } & VideoOffset)
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

/**
 * Why a run waits for its supplier: an `ask` step's question (the supplier ends the run past
 * `timeoutMs`), or a pause a client asked for (`pauseRequested`), before the step named.
 */
export type PauseRequest =
  | {
      reason: "ask";
      step: StepRef;
      /** Rendered, secret values masked. */
      prompt: string;
      /** The JSON Schema the answer must fit, as written in the skill. */
      schema: Record<string, unknown>;
      timeoutMs: number;
    }
  | { reason: "requested"; step: StepRef };

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
  /** The run's files (screenshots, downloads, …); steps that make or read files fail without. */
  files?: RunFiles;
  /** What the run may produce; DEFAULT_ENGINE_LIMITS for what is not given. */
  limits?: Partial<EngineLimits>;
  /**
   * The skills `call` steps may run, by id (the same owner's, everything the skill reaches
   * through its calls); a call of a skill not here fails.
   */
  skills?: Record<string, SkillDefinition>;
  /**
   * Where http steps may connect (the browser takes its own, see RunBrowserOptions.network);
   * nothing private by default.
   */
  network?: NetworkPolicy;
  /**
   * The owner's secrets this run may read, as `secrets.NAME` in expressions (give it those its
   * definition references: see referencedSecrets). Every value, and every value of an input the
   * definition declares `secret: true`, is replaced by `***` in the events and the result.
   */
  secrets?: Record<string, string>;
  /**
   * Masks the run's secret values wherever they would leave the engine. executeSkill makes one
   * when none is given and hands it on in the options it runs with, so whatever the run does
   * (createExecution gets those options) can add values to it, e.g. a called skill's secret
   * inputs. A caller that passes its own can mask what it reports beside the engine with it.
   */
  masker?: SecretMask;
  /**
   * Awaited before a step that may have effects outside the run (any browser step, an `http`
   * other than GET or HEAD) begins: before each one under `on_worker_loss: resume` (the
   * default), before the first one under `reset`, never under `restart`. A server records there
   * that the run must not be run again from before it if its worker is lost. The step waits for
   * it; a rejection fails the step with its message.
   */
  beforeEffects?: (step: StepRef) => Promise<void>;
  /**
   * Waits while the run is paused and resolves once a client resumes it: with the answer for an
   * `ask` step (checked against its schema by the supplier), with undefined for a pause asked
   * for between steps. The run's abort ends the wait (cancel, the ask's timeout, shutdown).
   * Without it an `ask` step fails and the run never pauses.
   */
  pause?: (request: PauseRequest) => Promise<unknown>;
  /**
   * The run stopped waiting without an answer while it goes on: a step's or a block's timeout
   * ran out during an `ask` (then `optional` or `retry` decide what follows). The supplier moves
   * the run back from paused.
   */
  pauseAbandoned?: () => void;
  /**
   * Asked before every step: true (once) when a client asked the run to pause, which then
   * pauses before that step.
   */
  pauseRequested?: () => boolean;
  /**
   * Called at every step boundary, before the step (its pause and its `if` included), with the
   * run's state there, in order with the events; a browser run's after its browser was read.
   * Unmasked: whoever keeps it seals it. None inside `on_resume`.
   */
  onCheckpoint?: (checkpoint: Checkpoint) => void;
  /**
   * A `wait` step began to wait, doing nothing, until `until` (epoch ms, of `now`): a supplier
   * may park the run meanwhile (stop it and go on later from the checkpoint before the step,
   * its last level's `until` set), instead of holding a slot for it.
   */
  onWait?: (step: StepRef, until: number) => void;
  /**
   * Goes on from a checkpoint instead of starting: its state restored (the top skill's inputs are
   * `inputs`), the skill's `on_resume` steps run first, then the step it names and the rest.
   * The browser's restore is the supplier's (RunBrowserOptions.restore).
   */
  resume?: Checkpoint;
  /**
   * Called as each attempt of a step begins (tracing): what it gives is the attempt's span,
   * ended with the attempt (its error message when it failed), and its `traceparent` is sent
   * by the attempt's `http` requests. Absent: nothing is traced, nothing is sent.
   */
  traceStep?: (step: StepRef, attempt: number) => StepSpan;
}

/** One step attempt's span, as ExecuteSkillOptions.traceStep made it. */
export interface StepSpan {
  /** The W3C `traceparent` of the span, for the requests the attempt makes. */
  traceparent: string;
  /** Ends the span: without an error it finished (or the run was stopped during it). */
  end(error?: string): void;
}
