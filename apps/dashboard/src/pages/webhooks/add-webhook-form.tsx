import { type FormEvent, useState } from "react";
import { ErrorNote } from "../../components/error-note.js";
import { controlProps, Field } from "../../components/field.js";
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
      <Field
        id="webhook-url"
        label="Address (http or https)"
        check={false}
        help={undefined}
        issue={urlIssue}
      >
        <input
          {...controlProps("webhook-url", undefined, urlIssue)}
          type="url"
          required
          value={url}
          placeholder="https://example.com/skillrun-hook"
          onChange={(e) => setUrl(e.target.value)}
        />
      </Field>
      <EventsFieldset events={events} onChange={setEvents} issue={eventsIssue} />
      {!urlIssue && !eventsIssue && <ErrorNote error={add.error} />}
      <button type="submit" disabled={add.isPending}>
        Add endpoint
      </button>
    </form>
  );
}
