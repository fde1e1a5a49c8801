import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useApi } from "../../api/api-context.js";
import { dataOf } from "../../api/errors.js";
import { WEBHOOKS_KEY } from "./webhook-types.js";

/** Deletes an endpoint with its deliveries, then reads the list again. */
export function useDeleteWebhook(webhookId: string) {
  const { client } = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      const result = await client.DELETE("/webhook/{id}", { params: { path: { id: webhookId } } });
      // A 204 has no body to read: only a refusal is turned into an error.
      if (!result.response.ok) dataOf(result);
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: WEBHOOKS_KEY }),
  });
}
