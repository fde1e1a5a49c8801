import { useQuery } from "@tanstack/react-query";
import { useApi } from "../../api/api-context.js";
import { dataOf } from "../../api/errors.js";

/** The figures of the overview, read again every 30 s while it is open. */
const REFRESH_MS = 30_000;

/** The caller's runs of the last 24 hours by state, failures by skill, and queue (`GET /v1/run/summary`). */
export function useRunSummary() {
  const { client } = useApi();
  return useQuery({
    queryKey: ["run-summary"],
    refetchInterval: REFRESH_MS,
    queryFn: async ({ signal }) => dataOf(await client.GET("/run/summary", { signal })),
  });
}
