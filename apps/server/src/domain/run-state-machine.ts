import type { RunState } from "./api-types.js";

/** A run's state as stored: null while queued. */
export type StoredRunState = RunState | null;

/** States a run never leaves. `end_time` is set exactly when a run enters one. */
export const TERMINAL_STATES = [
  "finish",
  "reset",
  "cancel",
  "timeout",
] as const satisfies RunState[];

/**
 * Every legal move, from → to (docs/api.md "Runs: states"). `null` is the queue:
 * a worker claims a queued run (→ play) and gives it back (→ null) when it shuts down or is
 * found dead. A queued client run ends in timeout when no agent took it within its time limit.
 * `editing` is never entered by a worker; like every unfinished run it can be
 * cancelled. Anything not listed here is refused.
 */
const TRANSITIONS: ReadonlyMap<StoredRunState, readonly StoredRunState[]> = new Map<
  StoredRunState,
  StoredRunState[]
>([
  [null, ["play", "cancel", "timeout"]],
  ["play", ["pause", "finish", "reset", "cancel", "timeout", null]],
  ["pause", ["play", "reset", "cancel", "timeout", null]],
  ["editing", ["cancel"]],
  ["finish", []],
  ["reset", []],
  ["cancel", []],
  ["timeout", []],
]);

/** Every state a run can be in, the queue (null) first. */
export const STORED_RUN_STATES: readonly StoredRunState[] = [...TRANSITIONS.keys()];

/** Whether `state` is terminal; a plain string too, as the database gives it back. */
export function isTerminal(state: string | null): boolean {
  return TERMINAL_STATES.some((terminal) => terminal === state);
}

export function canTransition(from: StoredRunState, to: StoredRunState): boolean {
  return TRANSITIONS.get(from)?.includes(to) ?? false;
}

/** The states from which `to` may be entered: what a conditional UPDATE matches on. */
export function sourcesOf(to: StoredRunState): StoredRunState[] {
  return STORED_RUN_STATES.filter((from) => canTransition(from, to));
}

/** How a state is told in a 409's detail: "it is running", "it is in state finish", … */
export function describedState(state: StoredRunState): string {
  if (state === null) return "it is queued, waiting for a worker";
  if (state === "play") return "it is running";
  return `it is in state ${state}`;
}
