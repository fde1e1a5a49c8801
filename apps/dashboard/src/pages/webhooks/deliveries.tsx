import { DataTable } from "../../components/data-table.js";
import { ErrorNote } from "../../components/error-note.js";
import { Loading } from "../../components/loading.js";
import { useNow } from "../../components/time.js";
import { DeliveryRow } from "./delivery-row.js";
import { useDeliveries } from "./use-deliveries.js";

/** An endpoint's deliveries as a table, each with its last attempt and Redeliver. */
export function Deliveries(props: { webhookId: string }) {
  const deliveries = useDeliveries(props.webhookId);
  const now = useNow(5_000);
  if (deliveries.error)
    return <ErrorNote error={deliveries.error} prefix="The deliveries could not be listed" />;
  if (!deliveries.data) return <Loading what="deliveries" />;
  if (deliveries.data.length === 0) return <p className="muted">No deliveries yet.</p>;
  return (
    <DataTable
      className="plain deliveries"
      caption="Deliveries, newest first"
      headers={["Event", "Run", "State", "Last attempt"]}
      actions
    >
      {deliveries.data.map((delivery) => (
        <DeliveryRow key={delivery.id} webhookId={props.webhookId} delivery={delivery} now={now} />
      ))}
    </DataTable>
  );
}
