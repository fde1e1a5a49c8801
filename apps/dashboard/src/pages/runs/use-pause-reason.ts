import type { RunSession } from "@skillrun/client";
import { useQuery } from "@tanstack/react-query";
import { useApi } from "../../api/api-context.js";
import { readRunLog } from "../../api/read-run-log.js";
import { pauseReasonKey } from "../../live/query-keys.js";
import { lastPause } from "../run/pause.js";

/**
 * Why a paused run of the list waits (`ask`, `requested`), from its step log, as its page says
 * it: the run alone does not tell. Read for paused runs only (a request each, see decision 0064),
 * once per pause: the run stream forgets it when the run changes. Null while unknown.
 */
export function usePauseReason(run: RunSession): string | null {
  const { client } = useApi();
  const paused = run.state === "pause";
  const reason = useQuery({
    queryKey: pauseReasonKey(run.id),
    enabled: paused,
    staleTime: Number.POSITIVE_INFINITY,
    queryFn: async ({ signal }) =>
      lastPause(await readRunLog(client, run.id, signal))?.reason ?? "requested",
  });
  return paused ? (reason.data ?? null) : null;
}
