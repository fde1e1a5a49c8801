import { useState } from "react";
import { ErrorNote } from "../../components/error-note.js";
import { MutationButton } from "../../components/mutation-button.js";
import { RelativeTime, useNow } from "../../components/time.js";
import { Deliveries } from "./deliveries.js";
import { useDeleteWebhook } from "./use-delete-webhook.js";
import type { Webhook } from "./webhook-types.js";

/** One endpoint: its address, events and state; its deliveries on demand; Delete, asked twice. */
export function WebhookItem(props: { webhook: Webhook }) {
  const { webhook } = props;
  const [open, setOpen] = useState(false);
  // Deleting asks once more, in place.
  const [confirming, setConfirming] = useState(false);
  const remove = useDeleteWebhook(webhook.id);
  const now = useNow();
  return (
    <li className="card webhook" data-webhook={webhook.id}>
      <h3 className="mono">{webhook.url}</h3>
      <p className="muted">
        {webhook.events.join(", ")} · added <RelativeTime iso={webhook.created_at} now={now} />
        {webhook.disabled_at ? ` · disabled: ${webhook.disabled_reason ?? ""}` : " · active"}
      </p>
      <div className="buttons">
        <button
          type="button"
          className="secondary"
          aria-expanded={open}
          onClick={() => setOpen(!open)}
        >
          {open ? "Hide deliveries" : "Show deliveries"}
        </button>
        {confirming ? (
          <>
            <MutationButton mutation={remove} className="danger">
              Delete it and its deliveries
            </MutationButton>
            <button type="button" className="secondary" onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </>
        ) : (
          <button type="button" className="danger" onClick={() => setConfirming(true)}>
            Delete
          </button>
        )}
      </div>
      <ErrorNote error={remove.error} prefix="The endpoint could not be deleted" />
      {open && <Deliveries webhookId={webhook.id} />}
    </li>
  );
}
