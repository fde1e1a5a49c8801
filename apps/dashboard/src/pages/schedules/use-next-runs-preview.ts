import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useApi } from "../../api/api-context.js";
import { dataOf } from "../../api/errors.js";

/** How long typing pauses before the preview is asked for. */
const SETTLE_MS = 400;

/**
 * The next five runs of a cron in a zone as the server computes them (`POST
 * /v1/schedule/next_runs`, the same rules a schedule's `next_runs` follow), asked again once
 * the fields have settled; the server's refusal is the query's error.
 */
export function useNextRunsPreview(cron: string, timezone: string) {
  const { client } = useApi();
  const [settled, setSettled] = useState({ cron, timezone });
  useEffect(() => {
    const timer = setTimeout(() => setSettled({ cron, timezone }), SETTLE_MS);
    return () => clearTimeout(timer);
  }, [cron, timezone]);
  const body = { cron: settled.cron.trim(), timezone: settled.timezone.trim() };
  return useQuery({
    queryKey: ["next-runs", body.cron, body.timezone],
    enabled: body.cron !== "" && body.timezone !== "",
    staleTime: 60_000,
    // The last preview stays while the next is asked for: the form does not jump as one types.
    placeholderData: keepPreviousData,
    queryFn: async ({ signal }) =>
      dataOf(await client.POST("/schedule/next_runs", { body, signal })),
  });
}
