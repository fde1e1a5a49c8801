import type { SchemaObject } from "ajv/dist/2020.js";
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
   * Runs one attempt from the action as written (templates unresolved). What it returns becomes
   * `steps.<id>`; throwing fails the attempt with the error's message.
   */
  run(action: Action, context: StepContext): Promise<unknown>;
}

/** Declares a step kind; `Action` is the type of its action as written. */
export function defineStepKind<Action>(
  definition: StepKindDefinition<Action>,
): StepKindDefinition<Action> {
  return definition;
}
