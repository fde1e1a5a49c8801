import { useQuery } from "@tanstack/react-query";
import { useApi } from "../../api/api-context.js";
import { dataOf } from "../../api/errors.js";
import { deliveriesKey } from "./webhook-types.js";

/** An endpoint's deliveries, newest first, read again every 2 s while they are shown. */
export function useDeliveries(webhookId: string) {
  const { client } = useApi();
  return useQuery({
    queryKey: deliveriesKey(webhookId),
    // Deliveries are sent in the background and have no stream: look again while the list is open.
    refetchInterval: 2_000,
    queryFn: async ({ signal }) =>
      dataOf(
        await client.GET("/webhook/{id}/deliveries", {
          params: { path: { id: webhookId } },
          signal,
        }),
      ),
  });
}
