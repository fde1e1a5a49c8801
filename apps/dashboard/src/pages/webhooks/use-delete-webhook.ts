import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useApi } from "../../api/api-context.js";
import { dataOf } from "../../api/errors.js";
import { WEBHOOKS_KEY } from "./webhook-types.js";

/** Deleting an endpoint, asked once more first (`confirming`), then the list read again. */
export function useDeleteWebhook(webhookId: string) {
  const { client } = useApi();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: async () => {
      const result = await client.DELETE("/webhook/{id}", { params: { path: { id: webhookId } } });
      // A 204 has no body to read: only a refusal is turned into an error.
      if (!result.response.ok) dataOf(result);
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: WEBHOOKS_KEY }),
  });
  return { confirming, setConfirming, remove };
}
