import { defineStepKind } from "./step-kind.js";

/**
 * `set`: stores each value, templates resolved, in the run's data and gives the changes. Every
 * value sees the data as it was before the step.
 */
export const setStep = defineStepKind<Record<string, unknown>>({
  schema: {
    type: "object",
    minProperties: 1,
    description: "Stores each value in the run's data under its key.",
  },
  async run(action, context) {
    const changes: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(action)) changes[key] = await context.resolve(value);
    context.detail(assignments(changes, context.preview));
    context.save(changes);
    return changes;
  },
});

/** What a `set` wrote, as its detail says it: `price = "12.99", cheap = true`. */
function assignments(
  changes: Record<string, unknown>,
  preview: (value: unknown) => string,
): string {
  return Object.entries(changes)
    .map(([key, value]) => `${key} = ${preview(value)}`)
    .join(", ");
}
