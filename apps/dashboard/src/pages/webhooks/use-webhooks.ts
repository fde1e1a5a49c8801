import { useQuery } from "@tanstack/react-query";
import { useApi } from "../../api/api-context.js";
import { dataOf } from "../../api/errors.js";
import { WEBHOOKS_KEY } from "./webhook-types.js";

/** The caller's webhook endpoints. */
export function useWebhooks() {
  const { client } = useApi();
  return useQuery({
    queryKey: WEBHOOKS_KEY,
    queryFn: async ({ signal }) => dataOf(await client.GET("/webhook/list", { signal })),
  });
}
