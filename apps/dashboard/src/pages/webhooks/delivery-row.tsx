import { RelativeTime } from "../../components/time.js";
import { Link, runPath } from "../../router.js";
import { RedeliverButton } from "./redeliver-button.js";
import type { Delivery } from "./webhook-types.js";

/** One delivery: its event, run, state, and its last attempt's answer, latency and time. */
export function DeliveryRow(props: { webhookId: string; delivery: Delivery; now: number }) {
  const { delivery } = props;
  const last = delivery.attempts.at(-1);
  return (
    <tr data-delivery={delivery.id}>
      <td>{delivery.event}</td>
      <td>
        <Link to={runPath(delivery.run_id)} className="mono">
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
            {last.latency_ms} ms · <RelativeTime iso={last.at} now={props.now} />
          </>
        ) : (
          "not yet sent"
        )}
        {delivery.attempts.length > 1 && ` (${delivery.attempts.length} attempts)`}
      </td>
      <td>
        <RedeliverButton webhookId={props.webhookId} deliveryId={delivery.id} />
      </td>
    </tr>
  );
}
