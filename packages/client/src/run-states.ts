import type { RunSessionState } from "./contract-types.js";

/** The states a run never leaves. */
export const TERMINAL_STATES: readonly RunSessionState[] = ["finish", "reset", "cancel", "timeout"];

/** Whether a run in `state` has ended for good (`finish`, `reset`, `cancel`, `timeout`). */
export function isTerminalState(state: RunSessionState | null | undefined): boolean {
  return state != null && TERMINAL_STATES.includes(state);
}
