import { useQuery } from "@tanstack/react-query";
import { useApi } from "../../api/api-context.js";
import { dataOf } from "../../api/errors.js";
import { SCHEDULES_KEY, ticksKey } from "./schedule-types.js";

/**
 * The caller's schedules, oldest first. Ticks fire in the background with no stream to say so:
 * read again every 10 s while the list is shown, so next runs and last runs move on.
 */
export function useSchedules() {
  const { client } = useApi();
  return useQuery({
    queryKey: SCHEDULES_KEY,
    refetchInterval: 10_000,
    queryFn: async ({ signal }) => dataOf(await client.GET("/schedule/list", { signal })),
  });
}

/** A schedule's newest ticks (at most 50), read again every 10 s while they are shown. */
export function useScheduleTicks(scheduleId: string) {
  const { client } = useApi();
  return useQuery({
    queryKey: ticksKey(scheduleId),
    refetchInterval: 10_000,
    queryFn: async ({ signal }) =>
      dataOf(
        await client.GET("/schedule/{id}/ticks", {
          params: { path: { id: scheduleId }, query: { limit: 50 } },
          signal,
        }),
      ),
  });
}
