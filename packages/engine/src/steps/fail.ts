import { text } from "../definition/schema-parts.js";
import { defineStepKind } from "./step-kind.js";

/**
 * `fail: "<message>"`: ends the run in `reset` on purpose, `data.error` holding the step and the
 * message (templates rendered). It is what an `if` on data makes of a check.
 */
export const failStep = defineStepKind<string>({
  schema: { ...text, description: "Why the run fails; templates are rendered as text." },
  async run(action, context) {
    const message = await context.render(action);
    context.detail(message);
    throw new DeliberateFailure(message);
  },
});

/** A failure the skill asked for: retrying cannot change it, so it is never retried. */
export class DeliberateFailure extends Error {
  override readonly name = "DeliberateFailure";
}
