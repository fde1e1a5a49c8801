import { type FormEvent, useState } from "react";
import { messageOf } from "../../api/errors.js";
import { EventsFieldset } from "./events-fieldset.js";
import { issueAt, useAddWebhook } from "./use-add-webhook.js";
import { WEBHOOK_EVENTS, type WebhookEvent } from "./webhook-types.js";

/** Adds an endpoint: its address and events; the server's refusal shown at its field. */
export function AddWebhookForm(props: { onAdded: (url: string, secret: string) => void }) {
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<WebhookEvent[]>([...WEBHOOK_EVENTS]);
  const add = useAddWebhook((added, secret) => {
    setUrl("");
    props.onAdded(added, secret);
  });
  const urlIssue = issueAt(add.error, "url");
  const eventsIssue = issueAt(add.error, "events");
  function submit(event: FormEvent) {
    event.preventDefault();
    add.mutate({ url, events });
  }
  return (
    <form className="add-webhook" onSubmit={submit} noValidate aria-labelledby="add-webhook-title">
      <h2 id="add-webhook-title">Add an endpoint</h2>
      <div className="field">
        <label htmlFor="webhook-url">Address (http or https)</label>
        <input
          id="webhook-url"
          type="url"
          required
          value={url}
          placeholder="https://example.com/skillrun-hook"
          aria-invalid={urlIssue ? true : undefined}
          aria-describedby={urlIssue ? "webhook-url-error" : undefined}
          onChange={(e) => setUrl(e.target.value)}
        />
        {urlIssue && (
          <p id="webhook-url-error" className="error">
            {urlIssue}
          </p>
        )}
      </div>
      <EventsFieldset events={events} onChange={setEvents} issue={eventsIssue} />
      {add.error && !urlIssue && !eventsIssue && (
        <p className="error" role="alert">
          {messageOf(add.error)}
        </p>
      )}
      <button type="submit" disabled={add.isPending}>
        Add endpoint
      </button>
    </form>
  );
}
