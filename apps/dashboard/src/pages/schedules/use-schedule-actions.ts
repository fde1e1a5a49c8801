import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useApi } from "../../api/api-context.js";
import { dataOf } from "../../api/errors.js";
import { SCHEDULES_KEY } from "./schedule-types.js";

/** Pauses or resumes a schedule (`PATCH {paused}`), then reads the list again. */
export function useSetPaused(scheduleId: string, paused: boolean) {
  const { client } = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () =>
      dataOf(
        await client.PATCH("/schedule/{id}", {
          params: { path: { id: scheduleId } },
          body: { paused },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: SCHEDULES_KEY }),
  });
}

/** Deletes a schedule (its runs stay), then reads the list again. */
export function useDeleteSchedule(scheduleId: string) {
  const { client } = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      const result = await client.DELETE("/schedule/{id}", {
        params: { path: { id: scheduleId } },
      });
      // A 204 has no body to read: only a refusal is turned into an error.
      if (!result.response.ok) dataOf(result);
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: SCHEDULES_KEY }),
  });
}
