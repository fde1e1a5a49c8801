import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useApi } from "../../api/api-context.js";
import { dataOf, messageOf } from "../../api/errors.js";
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
    <span className="inline-action">
      <button
        type="button"
        className="secondary"
        disabled={redeliver.isPending}
        onClick={() => redeliver.mutate()}
      >
        Redeliver
      </button>
      {redeliver.error && (
        <span className="error" role="alert">
          {messageOf(redeliver.error)}
        </span>
      )}
    </span>
  );
}
