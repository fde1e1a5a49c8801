import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useApi } from "../../api/api-context.js";
import { dataOf } from "../../api/errors.js";
import { InlineAction } from "../../components/mutation-button.js";
import { deliveriesKey } from "./webhook-types.js";

/** Sends a delivery again; the deliveries are read again after, a refusal shown beside it. */
export function RedeliverButton(props: { webhookId: string; deliveryId: string }) {
  const { client } = useApi();
  const queryClient = useQueryClient();
  const redeliver = useMutation({
    mutationFn: async () =>
      dataOf(
        await client.POST("/webhook/{id}/deliveries/{delivery}/redeliver", {
          params: { path: { id: props.webhookId, delivery: props.deliveryId } },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: deliveriesKey(props.webhookId) }),
  });
  return (
    <InlineAction mutation={redeliver} className="secondary">
      Redeliver
    </InlineAction>
  );
}
