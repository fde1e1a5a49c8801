/** The states a run can be in (null, not listed here, is "queued"). */
export const RUN_STATES = [
  "play",
  "pause",
  "finish",
  "reset",
  "cancel",
  "timeout",
  "editing",
] as const;

export type RunState = (typeof RUN_STATES)[number];

/** States a run never leaves; `end_time` is set exactly when a run enters one. */
export const TERMINAL_STATES: readonly RunState[] = ["finish", "reset", "cancel", "timeout"];

export function isTerminal(state: RunState | null): boolean {
  return state !== null && TERMINAL_STATES.includes(state);
}
