import { parseDuration } from "../definition/duration.js";
import { ref } from "../definition/schema-parts.js";
import { sleep } from "../run/abort.js";
import { defineStepKind } from "./step-kind.js";

/** `wait`: pauses for a duration such as `2s`, at once interrupted by an abort; gives the ms. */
export const waitStep = defineStepKind<string>({
  schema: ref("duration"),
  async run(action, context) {
    const duration = await context.render(action);
    const ms = parseDuration(duration);
    context.detail(duration);
    // A parked wait goes on until the end it had, not for the whole duration again.
    const until = context.resumed?.until;
    const left = until === undefined ? ms : Math.max(0, Date.parse(until) - Date.now());
    context.waiting?.(Date.now() + left);
    await sleep(left, context.signal);
    return ms;
  },
});
