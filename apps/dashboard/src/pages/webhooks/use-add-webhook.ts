import { useMutation } from "@tanstack/react-query";
import { useApi } from "../../api/api-context.js";
import { CallFailed, dataOf } from "../../api/errors.js";
import type { WebhookEvent } from "./webhook-types.js";

/** Adds an endpoint (`POST /v1/webhook`); `onAdded` gets its address and its one-time secret. */
export function useAddWebhook(onAdded: (url: string, secret: string) => void) {
  const { client } = useApi();
  return useMutation({
    mutationFn: async (endpoint: { url: string; events: WebhookEvent[] }) =>
      dataOf(
        await client.POST("/webhook", {
          body: { url: endpoint.url.trim(), events: endpoint.events },
        }),
      ),
    onSuccess: (webhook) => onAdded(webhook.url, webhook.secret),
  });
}

/** The refusal's message about one field of the body (`loc` `["body", field]`), if any. */
export function issueAt(error: unknown, field: string): string | undefined {
  if (!(error instanceof CallFailed)) return undefined;
  return error.issues.find((issue) => issue.loc[1] === field)?.msg;
}
