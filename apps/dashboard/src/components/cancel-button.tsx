import { useMutation } from "@tanstack/react-query";
import { useApi } from "../api/api-context.js";
import { dataOf } from "../api/errors.js";
import { InlineAction } from "./mutation-button.js";

/** Cancels a run; the run stream then shows its new state. A refusal is shown beside it. */
export function CancelButton(props: { id: string; label?: string }) {
  const { client } = useApi();
  const cancel = useMutation({
    mutationFn: async () =>
      dataOf(await client.POST("/run/{id}/cancel", { params: { path: { id: props.id } } })),
  });
  return (
    <InlineAction mutation={cancel} className="danger" label={props.label}>
      {cancel.isPending ? "Cancelling…" : "Cancel"}
    </InlineAction>
  );
}
