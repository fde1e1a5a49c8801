import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useApi } from "../api/api-context.js";
import { CallFailed, dataOf, messageOf } from "../api/errors.js";
import { ErrorNote } from "../components/error-note.js";
import { RelativeTime, useNow } from "../components/time.js";
import { Link, useTitle } from "../router.js";

const EVENTS = [
  "run.finished",
  "run.failed",
  "run.cancelled",
  "run.timeout",
  "run.paused",
] as const;
type WebhookEvent = (typeof EVENTS)[number];

/** The caller's webhook endpoints: add one (its secret shown once), delete, see deliveries. */
export function WebhooksPage() {
  useTitle("Webhooks");
  const { client } = useApi();
  const queryClient = useQueryClient();
  const webhooks = useQuery({
    queryKey: ["webhooks"],
    queryFn: async ({ signal }) => dataOf(await client.GET("/webhook/list", { signal })),
  });
  const [created, setCreated] = useState<{ url: string; secret: string } | null>(null);
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      <p className="muted">
        An endpoint is sent a signed POST of the run when a run of yours finishes, fails, is
        cancelled, times out or pauses.
      </p>
      {created && (
        <div className="secret-once" role="status">
          <h2>Endpoint added: copy its signing secret now</h2>
          <p>
            It is shown only this once. Deliveries to <span className="mono">{created.url}</span>{" "}
            are signed with it.
          </p>
          <label htmlFor="new-secret">Signing secret</label>
          <input
            id="new-secret"
            className="mono"
            readOnly
            value={created.secret}
            onFocus={(e) => e.target.select()}
          />
          <button type="button" className="secondary" onClick={() => setCreated(null)}>
            I have copied it
          </button>
        </div>
      )}
      <AddWebhook
        onAdded={(url, secret) => {
          setCreated({ url, secret });
          void queryClient.invalidateQueries({ queryKey: ["webhooks"] });
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

function AddWebhook(props: { onAdded: (url: string, secret: string) => void }) {
  const { client } = useApi();
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<WebhookEvent[]>([...EVENTS]);
  const add = useMutation({
    mutationFn: async () =>
      dataOf(await client.POST("/webhook", { body: { url: url.trim(), events } })),
    onSuccess: (webhook) => {
      setUrl("");
      props.onAdded(webhook.url, webhook.secret);
    },
  });
  const urlIssue =
    add.error instanceof CallFailed
      ? add.error.issues.find((issue) => issue.loc[1] === "url")?.msg
      : undefined;
  const eventsIssue =
    add.error instanceof CallFailed
      ? add.error.issues.find((issue) => issue.loc[1] === "events")?.msg
      : undefined;
  function submit(event: FormEvent) {
    event.preventDefault();
    add.mutate();
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
      <fieldset>
        <legend>Events</legend>
        {EVENTS.map((name) => (
          <label key={name} className="check">
            <input
              type="checkbox"
              checked={events.includes(name)}
              onChange={(e) =>
                setEvents(e.target.checked ? [...events, name] : events.filter((x) => x !== name))
              }
            />{" "}
            {name}
          </label>
        ))}
        {eventsIssue && <p className="error">{eventsIssue}</p>}
      </fieldset>
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

interface Webhook {
  id: string;
  url: string;
  events: string[];
  created_at: string;
  disabled_at?: string | null;
  disabled_reason?: string | null;
}

function WebhookItem(props: { webhook: Webhook }) {
  const { webhook } = props;
  const { client } = useApi();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const now = useNow();
  const remove = useMutation({
    mutationFn: async () => {
      const result = await client.DELETE("/webhook/{id}", { params: { path: { id: webhook.id } } });
      if (!result.response.ok) dataOf(result);
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["webhooks"] }),
  });
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
            <button
              type="button"
              className="danger"
              disabled={remove.isPending}
              onClick={() => remove.mutate()}
            >
              Delete it and its deliveries
            </button>
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

function Deliveries(props: { webhookId: string }) {
  const { client } = useApi();
  const now = useNow(5_000);
  const deliveries = useQuery({
    queryKey: ["deliveries", props.webhookId],
    // Deliveries are sent in the background: look again while the list is open.
    refetchInterval: 2_000,
    queryFn: async ({ signal }) =>
      dataOf(
        await client.GET("/webhook/{id}/deliveries", {
          params: { path: { id: props.webhookId } },
          signal,
        }),
      ),
  });
  if (deliveries.error)
    return <ErrorNote error={deliveries.error} prefix="The deliveries could not be listed" />;
  if (!deliveries.data) return <p role="status">Loading deliveries…</p>;
  if (deliveries.data.length === 0) return <p className="muted">No deliveries yet.</p>;
  return (
    <div className="table-wrap">
      <table className="plain deliveries">
        <caption className="visually-hidden">Deliveries, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Run</th>
            <th scope="col">State</th>
            <th scope="col">Last attempt</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {deliveries.data.map((delivery) => {
            const last = delivery.attempts.at(-1);
            return (
              <tr key={delivery.id} data-delivery={delivery.id}>
                <td>{delivery.event}</td>
                <td>
                  <Link to={`/runs/${encodeURIComponent(delivery.run_id)}`} className="mono">
                    {delivery.run_id.slice(0, 16)}…
                  </Link>
                </td>
                <td>
                  <span className={`delivery delivery-${delivery.state}`}>{delivery.state}</span>
                </td>
                <td>
                  {last ? (
                    <>
                      {last.status !== null ? `HTTP ${last.status}` : (last.error ?? "no answer")} ·{" "}
                      {last.latency_ms} ms · <RelativeTime iso={last.at} now={now} />
                    </>
                  ) : (
                    "not yet sent"
                  )}
                  {delivery.attempts.length > 1 && ` (${delivery.attempts.length} attempts)`}
                </td>
                <td>
                  <Redeliver webhookId={props.webhookId} deliveryId={delivery.id} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function Redeliver(props: { webhookId: string; deliveryId: string }) {
  const { client } = useApi();
  const queryClient = useQueryClient();
  const redeliver = useMutation({
    mutationFn: async () =>
      dataOf(
        await client.POST("/webhook/{id}/deliveries/{delivery}/redeliver", {
          params: { path: { id: props.webhookId, delivery: props.deliveryId } },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["deliveries", props.webhookId] }),
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
