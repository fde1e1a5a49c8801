import { stepList, text } from "../definition/schema-parts.js";
import type { Step } from "../definition/types.js";
import { MAX_ITERATIONS } from "./loop-limits.js";
import { defineStepKind } from "./step-kind.js";

export type RepeatAction = { max: number; until?: string; steps: Step[] };

/**
 * `repeat`: runs its steps again and again, at most `max` times. With `until` (checked after
 * each round) it stops as soon as the condition holds, and fails when `max` rounds pass without
 * it: a loop always has a bound. Without `until` it runs exactly `max` rounds.
 */
export const repeatStep = defineStepKind<RepeatAction>({
  schema: {
    type: "object",
    required: ["max", "steps"],
    properties: {
      max: {
        type: "integer",
        minimum: 1,
        maximum: MAX_ITERATIONS,
        description:
          "A loop always has a bound: at most this many rounds; with until, the step fails past them.",
      },
      until: { ...text, description: "Checked after each round; the loop ends when it holds." },
      steps: stepList,
    },
    additionalProperties: false,
  },
  blocks: ["steps"],
  async run(action, context) {
    // A resumed loop goes on in the round it was in.
    for (let round = context.resumed?.round ?? 1; round <= action.max; round += 1) {
      context.detail(`round ${round} of at most ${action.max}`);
      await context.runSteps(action.steps, round);
      if (action.until !== undefined && (await context.holds(action.until))) {
        context.detail(`${round} round${round === 1 ? "" : "s"}`);
        return { iterations: round };
      }
    }
    context.detail(`${action.max} round${action.max === 1 ? "" : "s"}`);
    if (action.until === undefined) return { iterations: action.max };
    throw new Error(
      `"until" did not hold after ${action.max} rounds, the loop's max: ${action.until}`,
    );
  },
});
