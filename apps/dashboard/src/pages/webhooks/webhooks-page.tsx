import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorNote } from "../../components/error-note.js";
import { useTitle } from "../../router.js";
import { AddWebhookForm } from "./add-webhook-form.js";
import { SecretOnce } from "./secret-once.js";
import { useWebhooks } from "./use-webhooks.js";
import { WebhookItem } from "./webhook-item.js";
import { WEBHOOKS_KEY } from "./webhook-types.js";

/** The caller's webhook endpoints: add one (its secret shown once), delete, see deliveries. */
export function WebhooksPage() {
  useTitle("Webhooks");
  const queryClient = useQueryClient();
  const webhooks = useWebhooks();
  const [created, setCreated] = useState<{ url: string; secret: string } | null>(null);
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      <p className="muted">
        An endpoint is sent a signed POST of the run when a run of yours finishes, fails, is
        cancelled, times out or pauses.
      </p>
      {created && <SecretOnce {...created} onDismiss={() => setCreated(null)} />}
      <AddWebhookForm
        onAdded={(url, secret) => {
          setCreated({ url, secret });
          void queryClient.invalidateQueries({ queryKey: WEBHOOKS_KEY });
        }}
      />
      <h2>Endpoints</h2>
      <ErrorNote error={webhooks.error} prefix="The endpoints could not be listed" />
      {webhooks.data?.length === 0 && <p className="muted">No endpoints yet.</p>}
      <ul className="webhooks">
        {webhooks.data?.map((webhook) => (
          <WebhookItem key={webhook.id} webhook={webhook} />
        ))}
      </ul>
    </section>
  );
}
