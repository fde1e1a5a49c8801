import type { StepRunner } from "./step-runner.js";

/** Reports a message (templates rendered as text) at its level, info by default; gives the message. */
export const runLog: StepRunner<"log"> = async (action, context) => {
  const { message, level = "info" } = typeof action === "string" ? { message: action } : action;
  const text = await context.render(message);
  context.log(level, text);
  return text;
};
