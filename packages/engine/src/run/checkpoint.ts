import type { BrowserSnapshot } from "../browser/browser-snapshot.js";
import type { SkillDefinition, Step } from "../definition/types.js";
import { stepKind } from "../steps/registry.js";
import type { StepRef } from "./types.js";

/**
 * One level of where a run is: the step at `index` of a list of steps. Every level but the last
 * is a block the run is inside (a loop's round, a called skill); the last is the step about to
 * run.
 */
export interface CheckpointLevel {
  index: number;
  /** The round (from 1) of the loop at `index` the next level is inside. */
  round?: number;
  /** A `for_each`'s items as resolved before its first round: a resume does not resolve them again. */
  items?: unknown[];
  /**
   * For a `wait` that began and was parked (the last level): when it ends (ISO). A resume waits
   * only until then, instead of the whole duration again.
   */
  until?: string;
}

/** What one skill of the run (its own, or one a `call` runs) holds at a step boundary. */
export interface SkillSnapshot {
  skill_id: string;
  inputs: Record<string, unknown>;
  data: Record<string, unknown>;
  vars: Record<string, unknown>;
  steps: Record<string, unknown>;
}

/**
 * A run's execution state at a step boundary, before the step `step` names: enough to go on from
 * there in another process, on another worker, or in a new run (rerun). Plain JSON. It holds
 * secret values in clear (inputs, variables): whoever keeps it seals it.
 */
export interface Checkpoint {
  version: 1;
  /** The label of the step about to run (see StepRef). */
  step: string;
  /** Outermost first; see CheckpointLevel. */
  path: CheckpointLevel[];
  /** Steps begun before this one, counted against the run's step limit. */
  steps_run: number;
  /** The run's own skill first, then one for each `call` in `path`, outermost first. */
  skills: SkillSnapshot[];
  /** The browser's tabs and storage, once the run has opened it. */
  browser?: BrowserSnapshot;
}

/** Where a resumed list of steps starts: the levels left of a checkpoint's path, and its skills. */
export interface ResumeCursor {
  path: CheckpointLevel[];
  /** The snapshots of the skills the `call` levels in `path` run, outermost first. */
  calls: SkillSnapshot[];
}

/** The cursor a whole checkpoint starts the run's own steps at. */
export function cursorOf(checkpoint: Checkpoint): ResumeCursor {
  return { path: checkpoint.path, calls: checkpoint.skills.slice(1) };
}

/** The version this engine writes and reads; a checkpoint of another is refused. */
export const CHECKPOINT_VERSION = 1;

/** Why a checkpoint cannot be resumed by this engine, or null when it can. */
export function checkpointProblem(value: unknown): string | null {
  if (typeof value !== "object" || value === null) return "the checkpoint is not an object";
  const checkpoint = value as Partial<Checkpoint>;
  if (checkpoint.version !== CHECKPOINT_VERSION) {
    return `the checkpoint's version ${String(checkpoint.version)} is not ${CHECKPOINT_VERSION}`;
  }
  if (!Array.isArray(checkpoint.path) || checkpoint.path.length === 0) {
    return "the checkpoint names no step";
  }
  if (!Array.isArray(checkpoint.skills) || checkpoint.skills.length === 0) {
    return "the checkpoint holds no skill state";
  }
  return null;
}

/**
 * The step a checkpoint names, found by its path in `definition` (through loops and the skills
 * `call` steps run, which `skill` gives); undefined when the path leads to no step, e.g. the
 * skill changed since the checkpoint was taken.
 */
export function stepAt(
  checkpoint: Checkpoint,
  definition: SkillDefinition,
  skill: (id: string) => SkillDefinition | undefined,
): StepRef | undefined {
  let steps: Step[] = definition.steps;
  const levels = checkpoint.path;
  for (const [depth, level] of levels.entries()) {
    const step = steps[level.index];
    if (step === undefined) return undefined;
    const kind = stepKind(step);
    if (depth === levels.length - 1) {
      return { index: level.index, ...(step.id && { id: step.id }), kind, label: checkpoint.step };
    }
    const action = (step as unknown as Record<string, Record<string, unknown>>)[kind] ?? {};
    if (kind === "for_each" || kind === "repeat") {
      if (typeof level.round !== "number") return undefined;
      steps = action.steps as Step[];
    } else if (kind === "call") {
      const called = skill(action.skill as string);
      if (called === undefined) return undefined;
      steps = called.steps;
    } else {
      return undefined;
    }
  }
  return undefined;
}
