import type { RunSession } from "@skillrun/client";

/** One page of the run list as cached: its runs, the next cursor, and which runs belong in it. */
export interface RunsPageData {
  runs: RunSession[];
  next: string | undefined;
  /** The first page (no cursor): a new run appears at its top. */
  first: boolean;
  /** Whether a run belongs in this list (its filters). */
  matches: (run: RunSession) => boolean;
}

export interface RunsFilters {
  skill: string;
  state: string;
}

/** All cached run lists, or the one of these filters and cursor. */
export function runsListKey(filters?: RunsFilters, cursor?: string) {
  return filters ? (["runs", filters.skill, filters.state, cursor ?? ""] as const) : ["runs"];
}

export function runKey(id: string) {
  return ["run", id] as const;
}

/** Why a paused run waits, as the run list reads it from the run's log. */
export function pauseReasonKey(id: string) {
  return ["pause-reason", id] as const;
}
