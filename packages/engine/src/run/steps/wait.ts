import { parseDuration } from "../../definition/duration.js";
import { sleep } from "../abort.js";
import type { StepRunner } from "./step-runner.js";

/** Pauses for a duration such as `2s`, at once interrupted by an abort; gives the milliseconds. */
export const runWait: StepRunner<"wait"> = async (action, context) => {
  const ms = parseDuration(await context.render(action));
  await sleep(ms, context.signal);
  return ms;
};
