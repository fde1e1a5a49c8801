import { describeValue } from "../definition/describe.js";
import { ref, stepList } from "../definition/schema-parts.js";
import type { Step } from "../definition/types.js";
import { MAX_ITERATIONS } from "./loop-limits.js";
import { defineStepKind } from "./step-kind.js";

export type ForEachAction = { items: unknown; as?: string; steps: Step[] };

/** The variable a `for_each` without `as` puts its item in. */
export const DEFAULT_ITEM_NAME = "item";

/**
 * `for_each`: runs its steps once per item of a list (resolved once, before the first round),
 * the item in `vars.<as>` and its 0-based position in `vars.<as>_index`.
 */
export const forEachStep = defineStepKind<ForEachAction>({
  schema: {
    type: "object",
    required: ["items", "steps"],
    properties: {
      items: { description: "A list, or a template that gives one." },
      as: { ...ref("identifier"), description: "The item's variable name; item by default." },
      steps: stepList,
    },
    additionalProperties: false,
  },
  blocks: ["steps"],
  async run(action, context) {
    // A resumed loop goes on over the items it began with.
    const { resumed } = context;
    const items = resumed?.items ?? (await context.resolve(action.items));
    if (!Array.isArray(items)) {
      throw new Error(`"items" should give a list, got ${describeValue(items)}`);
    }
    if (items.length > MAX_ITERATIONS) {
      throw new Error(
        `"items" gives ${items.length} items, more than a loop may take (${MAX_ITERATIONS})`,
      );
    }
    const name = action.as ?? DEFAULT_ITEM_NAME;
    context.detail(`${items.length} item${items.length === 1 ? "" : "s"}`);
    for (let index = (resumed?.round ?? 1) - 1; index < items.length; index += 1) {
      context.setVars({ [name]: items[index], [`${name}_index`]: index });
      await context.runSteps(action.steps, index + 1, items);
    }
    return { iterations: items.length };
  },
});
