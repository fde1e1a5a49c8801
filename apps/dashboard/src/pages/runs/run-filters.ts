import type { RunSession } from "@skillrun/client";
import type { RunsFilters } from "../../live/query-keys.js";

/** The list's filters as the address keeps them (`?skill=…&state=…`); "" is any. */
export function filtersOf(search: URLSearchParams): RunsFilters {
  return { skill: search.get("skill") ?? "", state: search.get("state") ?? "" };
}

/** Whether a run belongs in a list of these filters (a run without a state is queued). */
export function matchesFilters(filters: RunsFilters, run: RunSession): boolean {
  return (
    (!filters.skill || run.skill_id === filters.skill) &&
    (!filters.state || (run.state ?? "queued") === filters.state)
  );
}
