import type { RunsFilters } from "../../live/query-keys.js";
import { navigate, useLocation } from "../../router.js";
import { filtersOf } from "./run-filters.js";

/**
 * The list's filters, kept in the address so that a filtered list can be reloaded and shared;
 * `setFilter` replaces the address rather than adding to the history at each choice.
 */
export function useRunsFilters() {
  const { search } = useLocation();
  const filters = filtersOf(search);
  function setFilter(name: keyof RunsFilters, value: string) {
    const next = new URLSearchParams(search);
    if (value) next.set(name, value);
    else next.delete(name);
    const query = next.toString();
    navigate(query ? `/?${query}` : "/", { replace: true });
  }
  return { filters, filtered: Boolean(filters.skill || filters.state), setFilter };
}
