import { WEBHOOK_EVENTS, type WebhookEvent } from "./webhook-types.js";

/** A check box for each event an endpoint can be sent, and the refusal's issue with them. */
export function EventsFieldset(props: {
  events: WebhookEvent[];
  onChange: (events: WebhookEvent[]) => void;
  issue: string | undefined;
}) {
  const { events, onChange } = props;
  return (
    <fieldset>
      <legend>Events</legend>
      {WEBHOOK_EVENTS.map((name) => (
        <label key={name} className="check">
          <input
            type="checkbox"
            checked={events.includes(name)}
            onChange={(e) =>
              onChange(e.target.checked ? [...events, name] : events.filter((x) => x !== name))
            }
          />{" "}
          {name}
        </label>
      ))}
      {props.issue && <p className="error">{props.issue}</p>}
    </fieldset>
  );
}
