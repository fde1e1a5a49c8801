import { checkInputs } from "../definition/check-inputs.js";
import { SKILL_ID_PATTERN } from "../definition/patterns.js";
import { MAX_CALL_DEPTH } from "./loop-limits.js";
import { defineStepKind } from "./step-kind.js";

export type CallAction = { skill: string; inputs?: Record<string, unknown> };

/**
 * `call`: runs another skill of the same owner inside this run (same browser page, same video).
 * Its inputs are checked as `POST /run/` checks them; its steps are labelled `<id> › …`; its
 * result is its output (or its data). The skill is named as written, never by a template, so
 * imports can check it exists and that calls form no cycle.
 */
export const callStep = defineStepKind<CallAction>({
  schema: {
    type: "object",
    required: ["skill"],
    properties: {
      skill: {
        type: "string",
        pattern: SKILL_ID_PATTERN.source,
        description: "The id of a skill of the same owner, as written, never a template.",
      },
      inputs: { type: "object", description: "The called skill's inputs; templates resolved." },
    },
    additionalProperties: false,
  },
  async run(action, context) {
    if (context.callDepth + 1 > MAX_CALL_DEPTH) {
      throw new Error(
        `calls nest deeper than ${MAX_CALL_DEPTH} skills; not calling "${action.skill}"`,
      );
    }
    context.detail(action.skill);
    const definition = context.skill(action.skill);
    if (definition === undefined) {
      throw new Error(
        `skill "${action.skill}" is not available to this run; import it for the same owner`,
      );
    }
    const given = (await context.resolve(action.inputs ?? {})) as Record<string, unknown>;
    const checked = checkInputs(definition.inputs, given);
    if (!checked.ok) {
      const issues = checked.issues.map((issue) => `inputs.${issue.key}: ${issue.msg}`);
      throw new Error(`the inputs do not fit skill "${action.skill}": ${issues.join("; ")}`);
    }
    return context.runSkill(definition, checked.values);
  },
});
