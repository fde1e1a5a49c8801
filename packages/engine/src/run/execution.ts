import type { BrowserAccess } from "../browser/browser-access.js";
import type { SkillDefinition } from "../definition/types.js";
import type { EvaluationHooks, ExpressionScope } from "../expressions/evaluate.js";
import type { RunFiles } from "../files/run-files.js";
import { type NetworkAccess, networkAccess } from "../network/network-access.js";
import { MAX_PROMPT_LENGTH } from "../steps/ask.js";
import { raceAbort } from "./abort.js";
import { CHECKPOINT_VERSION, type SkillSnapshot } from "./checkpoint.js";
import { DialogAnswers } from "./dialog-answers.js";
import {
  DataLimitExceeded,
  DEFAULT_ENGINE_LIMITS,
  type EngineLimits,
  StepLimitExceeded,
  VarsLimitExceeded,
} from "./limits.js";
import { type StepFrame, TOP_FRAME } from "./step-ref.js";
import type { EngineEvent, ExecuteSkillOptions, PauseRequest, RunInfo, StepRef } from "./types.js";

/** The events about one step, which carry `video_offset_ms`. */
const STEP_EVENTS: ReadonlySet<EngineEvent["type"]> = new Set([
  "step_started",
  "step_finished",
  "step_skipped",
  "step_failed",
  "log",
  "data_updated",
]);

/** An event before it is stamped with its time. */
export type Unstamped<E> = E extends unknown ? Omit<E, "at"> : never;

/**
 * One skill's moving parts while a list of its steps runs: its data, scratch variables and the
 * results of finished steps, plus what the whole run shares (clock, events, browser, limits).
 * A block's steps run in a view of the same skill (`within`); a `call` runs the called skill in
 * a fresh one (`calling`), whose data is its own.
 */
export interface Execution {
  /** Aborts when the run does, or when the block around these steps times out. */
  readonly signal: AbortSignal;
  readonly browser: BrowserAccess | undefined;
  readonly files: RunFiles | undefined;
  readonly limits: EngineLimits;
  /** Where the run may connect; its dispatcher is closed when the run ends. */
  readonly network: NetworkAccess;
  /** Answers the dialogs of the run's pages as the steps running say. */
  readonly dialogs: DialogAnswers;
  /** The skill whose steps these are. */
  readonly definition: SkillDefinition;
  /** Where these steps sit, for their labels. */
  readonly frame: StepFrame;
  /** How many calls deep this skill runs: 0 for the run's own skill. */
  readonly callDepth: number;
  /** Replaced, never changed in place, so a value handed out stays as it was. */
  readonly data: Record<string, unknown>;
  /** Milliseconds, from `ExecuteSkillOptions.now`. */
  now(): number;
  /** Whole milliseconds since `start`. */
  since(start: number): number;
  emit(event: Unstamped<EngineEvent>): void;
  /** The text with the run's secret values masked, as its events will be. */
  maskText(text: string): string;
  /** What expressions see right now. */
  scope(): ExpressionScope;
  /** What expressions are given besides the scope: the clock, the masking of what they make. */
  readonly hooks: EvaluationHooks;
  /** Begins a step attempt's span, when the run is traced (ExecuteSkillOptions.traceStep). */
  readonly traceStep: ExecuteSkillOptions["traceStep"];
  /** Merges keys into the data (reported for the run's own skill); throws past its limit. */
  save(step: StepRef, changes: Record<string, unknown>): void;
  /** Merges keys into the scratch variables (`vars`); throws past their limit. */
  setVars(changes: Record<string, unknown>): void;
  /** Keeps a step's result as `steps.<id>`; steps without an id are not kept. */
  record(step: StepRef, result: unknown): void;
  /** Counts a step about to run against the run's limit; throws past it. */
  countStep(): void;
  /**
   * Reports the checkpoint of the boundary before `step`, a step of these steps
   * (ExecuteSkillOptions.onCheckpoint); nothing inside `on_resume`.
   */
  checkpoint(step: StepRef): Promise<void>;
  /** A skill the run may call, or undefined. */
  skill(id: string): SkillDefinition | undefined;
  /**
   * Resolves once the run's supplier has recorded that the run may have had effects (see
   * `ExecuteSkillOptions.beforeEffects`): asked once per run, at once when it need not be.
   */
  beforeEffects(step: StepRef): Promise<void>;
  /**
   * Waits until a client resumes the paused run (ExecuteSkillOptions.pause), or `signal` aborts;
   * gives the answer. Rejects at once where nothing could resume the run.
   */
  pause(request: PauseRequest, signal: AbortSignal): Promise<unknown>;
  /** True (once) when a client asked the run to pause before its next step. */
  pauseRequested(): boolean;
  /** A step waits, doing nothing, until `until` (epoch ms): see ExecuteSkillOptions.onWait. */
  waiting(step: StepRef, until: number): void;
  /** The same skill's steps inside a block: another signal and frame, the same state. */
  within(signal: AbortSignal, frame: StepFrame): Execution;
  /**
   * Another skill, called from this one: its own inputs, data, vars and steps, or those of
   * `restored` (a checkpoint's, when a resumed run re-enters the call).
   */
  calling(
    definition: SkillDefinition,
    inputs: Record<string, unknown>,
    signal: AbortSignal,
    frame: StepFrame,
    restored?: SkillSnapshot,
  ): Execution;
}

/** What every skill of a run shares. */
interface RunWide {
  options: ExecuteSkillOptions;
  limits: EngineLimits;
  network: NetworkAccess;
  dialogs: DialogAnswers;
  now: () => number;
  stepsRun: number;
  /** The supplier's answer to `beforeEffects`, once asked. */
  effects?: Promise<void>;
  hooks: EvaluationHooks;
}

/** What one skill (the run's own or a called one) keeps while it runs. */
interface SkillState {
  definition: SkillDefinition;
  inputs: Record<string, unknown>;
  data: Record<string, unknown>;
  vars: Record<string, unknown>;
  steps: Record<string, unknown>;
  callDepth: number;
  /** The skill whose `call` runs this one; none for the run's own. */
  caller?: SkillState;
}

export function createExecution(options: ExecuteSkillOptions): Execution {
  const limits = { ...DEFAULT_ENGINE_LIMITS, ...options.limits };
  const wide: RunWide = {
    options,
    limits,
    network: networkAccess(options.network),
    // A dialog is logged as the run's own skill logs, whichever skill's step it opened during.
    dialogs: new DialogAnswers(options.definition.on_dialog, (step, message) =>
      top.emit({ type: "log", step, level: "info", message }),
    ),
    now: options.now ?? Date.now,
    stepsRun: options.resume?.steps_run ?? 0,
    hooks: {
      now: () => (options.now ?? Date.now)(),
      // A one-time code is masked wherever the run reports it, as a secret is.
      secretMade: (value) => options.masker?.add(value),
    },
  };
  // A resumed run goes on with its own skill's state as the checkpoint holds it, and the inputs
  // it is given (a rerun may give others).
  const restored = options.resume?.skills[0];
  const state: SkillState = {
    definition: options.definition,
    inputs: options.inputs,
    data: restored?.data ?? {},
    vars: restored?.vars ?? {},
    steps: { ...restored?.steps },
    callDepth: 0,
  };
  const top = view(wide, state, options.signal, TOP_FRAME);
  return top;
}

function view(wide: RunWide, state: SkillState, signal: AbortSignal, frame: StepFrame): Execution {
  const { options, limits, now } = wide;
  const execution: Execution = {
    signal,
    browser: options.browser,
    files: options.files,
    limits,
    network: wide.network,
    dialogs: wide.dialogs,
    definition: state.definition,
    frame,
    callDepth: state.callDepth,
    get data() {
      return state.data;
    },
    now,
    since: (start) => Math.round(now() - start),
    emit(event) {
      const { type, ...details } = event;
      const at = new Date(now()).toISOString();
      // Events about a step say where they are in the video, for a player's chapters.
      const offset = STEP_EVENTS.has(type) ? options.browser?.videoOffsetMs() : undefined;
      const chapter = offset === undefined ? {} : { video_offset_ms: offset };
      options.onEvent({ type, at, ...details, ...chapter } as EngineEvent);
    },
    maskText: (text) => options.masker?.maskText(text) ?? text,
    hooks: wide.hooks,
    traceStep: options.traceStep,
    scope: () => ({
      inputs: state.inputs,
      data: state.data,
      vars: state.vars,
      steps: state.steps,
      run: options.run satisfies RunInfo,
      secrets: options.secrets ?? {},
    }),
    save(step, changes) {
      const next = { ...state.data, ...changes };
      // Checked where data is written, so the step that would outgrow it is the one that fails.
      const bytes = jsonBytes(next);
      if (bytes > limits.dataBytes) throw new DataLimitExceeded(bytes, limits.dataBytes);
      state.data = next;
      // A called skill's data is its result, not the run's: only the run's own is reported.
      if (state.callDepth === 0) execution.emit({ type: "data_updated", step, changes });
    },
    setVars(changes) {
      const next = { ...state.vars, ...changes };
      const bytes = jsonBytes(next);
      if (bytes > limits.varsBytes) throw new VarsLimitExceeded(bytes, limits.varsBytes);
      state.vars = next;
    },
    record(step, result) {
      if (step.id !== undefined) state.steps[step.id] = result;
    },
    countStep() {
      wide.stepsRun += 1;
      if (wide.stepsRun > limits.steps) throw new StepLimitExceeded(limits.steps);
    },
    async checkpoint(step) {
      const write = options.onCheckpoint;
      if (write === undefined || !frame.checkpoints) return;
      const browser = options.browser?.started()
        ? await options.browser.snapshot().catch(() => null)
        : null;
      write({
        version: CHECKPOINT_VERSION,
        step: step.label,
        path: [...frame.path, { index: step.index }],
        steps_run: wide.stepsRun,
        skills: snapshotsOf(state),
        ...(browser !== null && { browser }),
      });
    },
    skill: (id) => (Object.hasOwn(options.skills ?? {}, id) ? options.skills?.[id] : undefined),
    beforeEffects(step) {
      const record = options.beforeEffects;
      // The run's own skill decides, for the skills it calls too.
      const choice = options.definition.on_worker_loss ?? "resume";
      if (record === undefined || choice === "restart") return Promise.resolve();
      // Going on from a checkpoint needs to know whether the worker was lost inside such a step
      // or after it: each one is recorded.
      if (choice === "resume") return record(step);
      wide.effects ??= record(step).catch((error: unknown) => {
        // Not recorded: the next step with effects asks again.
        wide.effects = undefined;
        throw error;
      });
      return wide.effects;
    },
    pause(request, pauseSignal) {
      if (options.pause === undefined) {
        return Promise.reject(
          new Error("nothing can answer this run: ask needs a Skillrun server to resume the run"),
        );
      }
      // Masked, then held to the written prompt's bound (a template may render far more).
      const told: PauseRequest =
        request.reason === "ask"
          ? { ...request, prompt: cut(options.masker?.maskText(request.prompt) ?? request.prompt) }
          : request;
      return raceAbort(options.pause(told), pauseSignal).catch((error: unknown) => {
        // Given up by a step's or block's timeout, not by the run's own stop: the run goes on.
        if (!options.signal.aborted) options.pauseAbandoned?.();
        throw error;
      });
    },
    pauseRequested: () => options.pauseRequested?.() === true,
    waiting: (step, until) => options.onWait?.(step, until),
    within: (inner, innerFrame) => view(wide, state, inner, innerFrame),
    calling(definition, given, inner, innerFrame, restored) {
      const inputs = restored?.inputs ?? given;
      // What the call gives the called skill's secret inputs is masked from now on.
      options.masker?.addSecretInputs(definition, inputs);
      const called: SkillState = {
        definition,
        inputs,
        data: restored?.data ?? {},
        vars: restored?.vars ?? {},
        steps: { ...restored?.steps },
        callDepth: state.callDepth + 1,
        caller: state,
      };
      return view(wide, called, inner, innerFrame);
    },
  };
  return execution;
}

/** The snapshots of a skill and of those whose calls it runs in, the run's own first. */
function snapshotsOf(state: SkillState): SkillSnapshot[] {
  const chain: SkillSnapshot[] = [];
  for (let at: SkillState | undefined = state; at !== undefined; at = at.caller) {
    chain.unshift({
      skill_id: at.definition.id,
      inputs: at.inputs,
      data: at.data,
      vars: at.vars,
      // Written into in place as steps finish: the checkpoint keeps this moment's.
      steps: { ...at.steps },
    });
  }
  return chain;
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? "");
}

/** Text cut to MAX_PROMPT_LENGTH characters, never inside a surrogate pair. */
function cut(text: string): string {
  if (text.length <= MAX_PROMPT_LENGTH) return text;
  let kept = text.slice(0, MAX_PROMPT_LENGTH - 1);
  if (/[\uD800-\uDBFF]$/.test(kept)) kept = kept.slice(0, -1);
  return `${kept}…`;
}
