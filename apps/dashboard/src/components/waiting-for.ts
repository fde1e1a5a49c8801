import type { RunSession } from "@skillrun/client";

/** What a queued run waits for (`waiting_for`), in words. */
const WORDS: Record<string, string> = {
  slot: "a free worker (owners take turns)",
  owner_limit: "one of your running runs to end (your limit of runs at once)",
  skill_limit: "a run of this skill to end (the skill's limit of runs at once)",
  concurrency_key: "a run with the same concurrency key to end",
  profile: "another run that saves its browser profile to end",
  agent: "an agent on your machine to take it",
};

/**
 * What a queued run waits for, in words: from `waiting_for`, or "a worker" when the server did
 * not say (a run just queued, or read from the run stream before its page read it).
 */
export function waitingText(waitingFor: RunSession["waiting_for"]): string {
  return (waitingFor && WORDS[waitingFor]) ?? "a worker";
}
