import { ref } from "../definition/schema-parts.js";
import { defineStepKind } from "./step-kind.js";

/**
 * `let`: stores each value, templates resolved, as a scratch variable (`vars.<name>`): for
 * counters, lists being built and flags, which are never part of the run's data. Every value sees
 * the variables as they were before the step.
 */
export const letStep = defineStepKind<Record<string, unknown>>({
  schema: {
    type: "object",
    minProperties: 1,
    propertyNames: ref("identifier"),
    description: "Stores each value as a scratch variable, vars.<name>.",
  },
  async run(action, context) {
    const changes: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(action))
      changes[name] = await context.resolve(value);
    // Names only: variables are the skill's own scratch (a token read from a response, a value
    // it later passes to a called skill's secret input), never shown anywhere else.
    context.detail(
      Object.keys(changes)
        .map((name) => `vars.${name}`)
        .join(", "),
    );
    context.setVars(changes);
    return changes;
  },
});
