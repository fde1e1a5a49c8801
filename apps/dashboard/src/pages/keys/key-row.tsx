import { useState } from "react";
import { InlineAction } from "../../components/mutation-button.js";
import { RelativeTime } from "../../components/time.js";
import { type ApiKey, useRevokeKey } from "./use-keys.js";

/** One key: what it is for, its first characters, scopes, age; Revoke, asked once more in place. */
export function KeyRow(props: { apiKey: ApiKey; now: number; current: boolean }) {
  const { apiKey, now } = props;
  const [confirming, setConfirming] = useState(false);
  const revoke = useRevokeKey(apiKey.id);
  const named = apiKey.name ?? apiKey.prefix;
  return (
    <tr data-key={apiKey.id}>
      <td>
        {apiKey.name ?? <span className="muted">No name</span>}
        <span className="sub mono">
          {apiKey.prefix}…{props.current ? " (the key you signed in with)" : ""}
        </span>
      </td>
      <td className="mono">{apiKey.scopes.join(", ")}</td>
      <td>
        <RelativeTime iso={apiKey.created_at} now={now} />
      </td>
      <td className="actions">
        {confirming ? (
          <>
            <InlineAction
              mutation={revoke}
              className="danger"
              label={`Revoke key ${named} for good`}
            >
              {props.current ? "Revoke and sign out" : "Revoke for good"}
            </InlineAction>
            <button type="button" className="secondary" onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </>
        ) : (
          <button
            type="button"
            className="danger"
            aria-label={`Revoke key ${named}`}
            onClick={() => setConfirming(true)}
          >
            Revoke
          </button>
        )}
      </td>
    </tr>
  );
}
