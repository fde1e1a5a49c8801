import { useMutation } from "@tanstack/react-query";
import { useApi } from "../api/api-context.js";
import { dataOf, messageOf } from "../api/errors.js";

/** Cancels a run; the run stream then shows its new state. A refusal is shown beside it. */
export function CancelButton(props: { id: string; label?: string }) {
  const { client } = useApi();
  const cancel = useMutation({
    mutationFn: async () =>
      dataOf(await client.POST("/run/{id}/cancel", { params: { path: { id: props.id } } })),
  });
  return (
    <span className="inline-action">
      <button
        type="button"
        className="danger"
        aria-label={props.label}
        disabled={cancel.isPending}
        onClick={() => cancel.mutate()}
      >
        {cancel.isPending ? "Cancelling…" : "Cancel"}
      </button>
      {cancel.error && (
        <span className="error" role="alert">
          {messageOf(cancel.error)}
        </span>
      )}
    </span>
  );
}
