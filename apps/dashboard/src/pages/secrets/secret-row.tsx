import type { components } from "@skillrun/client";
import { useState } from "react";
import { InlineAction } from "../../components/mutation-button.js";
import { RelativeTime } from "../../components/time.js";
import { useDeleteSecret } from "./use-secrets.js";

type SecretInfo = components["schemas"]["SecretInfo"];

/** One secret: its name, when it was set; Delete, asked once more in place. */
export function SecretRow(props: { secret: SecretInfo; now: number }) {
  const { secret, now } = props;
  const [confirming, setConfirming] = useState(false);
  const remove = useDeleteSecret(secret.name);
  return (
    <tr data-secret={secret.name}>
      <td className="mono">{secret.name}</td>
      <td>
        <RelativeTime iso={secret.updated_at} now={now} />
      </td>
      <td className="actions">
        {confirming ? (
          <>
            <InlineAction
              mutation={remove}
              className="danger"
              label={`Delete secret ${secret.name} for good`}
            >
              Delete for good
            </InlineAction>
            <button type="button" className="secondary" onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </>
        ) : (
          <button
            type="button"
            className="danger"
            aria-label={`Delete secret ${secret.name}`}
            onClick={() => setConfirming(true)}
          >
            Delete
          </button>
        )}
      </td>
    </tr>
  );
}
