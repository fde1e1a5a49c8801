import { text } from "../definition/schema-parts.js";
import type { LogLevel } from "../run/types.js";
import { defineStepKind } from "./step-kind.js";

export type LogAction = string | { message: string; level?: LogLevel };

/** `log`: reports a message (templates rendered as text) at its level, info by default. */
export const logStep = defineStepKind<LogAction>({
  schema: {
    type: ["string", "object"],
    minLength: 1,
    required: ["message"],
    properties: { message: text, level: { enum: ["debug", "info", "warn", "error"] } },
    additionalProperties: false,
    description: "A message, or { message, level }; level defaults to info.",
  },
  async run(action, context) {
    const { message, level = "info" } = typeof action === "string" ? { message: action } : action;
    const rendered = await context.render(message);
    context.detail(rendered);
    context.log(level, rendered);
    return rendered;
  },
});
