import type { StepRunner } from "./step-runner.js";

/**
 * Stores each value, templates resolved, in the run's data and gives the changes. Every value
 * sees the data as it was before the step.
 */
export const runSet: StepRunner<"set"> = async (action, context) => {
  const changes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(action)) changes[key] = await context.resolve(value);
  context.save(changes);
  return changes;
};
