import type { SchemaObject } from "ajv/dist/2020.js";
import type { PathSegment } from "../definition/problem.js";
import type { StepContext } from "./step-context.js";

/**
 * Everything about one step kind, in the kind's own file: the JSON Schema of its action (the
 * value under the kind's key, as written) and how one attempt of it runs. The registry
 * (registry.ts) lists every kind once; the definition format, the import checks and the engine
 * all read it from there.
 */
export interface StepKindDefinition<Action> {
  /**
   * The action's JSON Schema (draft 2020-12), embedded in the skill definition schema, so it may
   * refer to its `$defs` (`duration`, `identifier`). Union shapes are written as `type: [a, b]`
   * rather than `anyOf`: object keywords apply only to maps, so the schema stays exact while
   * validation reports one clear error instead of one per branch.
   */
  schema: SchemaObject;
  /** The kind drives the run's browser (`StepContext.browser`); a runner without one fails it. */
  browser?: true;
  /**
   * Whether a step may have effects outside the run, so that it must not run twice when a
   * worker is lost (`ExecuteSkillOptions.beforeEffects`). Absent: every browser step may (a
   * click, and even a page load, can change things), no other step does.
   */
  effects?: (action: Action) => boolean;
  /**
   * What the import refuses in an action that fits `schema` but that a schema cannot say; each
   * problem's path is within the action.
   */
  problems?: (action: Action) => { path: PathSegment[]; message: string }[];
  /**
   * The action's keys that hold a list of steps (a loop's `steps`): the import checks each of
   * those steps as a step, and walks them for ids and references.
   */
  blocks?: readonly string[];
  /**
   * Runs one attempt from the action as written (templates unresolved). What it returns becomes
   * `steps.<id>`; throwing fails the attempt with the error's message.
   */
  run(action: Action, context: StepContext): Promise<unknown>;
}

/** Whether a step of `kind` with this action may have effects outside the run. */
export function mayHaveEffects<Action>(kind: StepKindDefinition<Action>, action: Action): boolean {
  return kind.effects === undefined ? kind.browser === true : kind.effects(action);
}

/** Declares a step kind; `Action` is the type of its action as written. */
export function defineStepKind<Action>(
  definition: StepKindDefinition<Action>,
): StepKindDefinition<Action> {
  return definition;
}
