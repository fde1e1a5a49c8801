import type { RunSessionState } from "@skillrun/client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useApi } from "../../api/api-context.js";
import { dataOf } from "../../api/errors.js";
import { nextCursor } from "../../api/next-cursor.js";
import { type RunsFilters, type RunsPageData, runsListKey } from "../../live/query-keys.js";
import { matchesFilters } from "./run-filters.js";

const PAGE_SIZE = 25;

type StateFilter = "queued" | RunSessionState;

/**
 * One page of the caller's runs, newest first. The previous page stays shown while the next is
 * read, so the table does not jump; the run stream adds and updates runs in the cached page.
 */
export function useRunsList(filters: RunsFilters, cursor: string | undefined) {
  const { client } = useApi();
  return useQuery({
    queryKey: runsListKey(filters, cursor),
    placeholderData: keepPreviousData,
    queryFn: async ({ signal }): Promise<RunsPageData> => {
      const result = await client.GET("/run/list", {
        params: {
          query: {
            limit: PAGE_SIZE,
            ...(filters.skill && { skill_id: filters.skill }),
            ...(filters.state && { state_filter: [filters.state as StateFilter] }),
            ...(cursor && { cursor }),
          },
        },
        signal,
      });
      return {
        runs: dataOf(result),
        next: nextCursor(result.response),
        first: cursor === undefined,
        matches: (run) => matchesFilters(filters, run),
      };
    },
  });
}
