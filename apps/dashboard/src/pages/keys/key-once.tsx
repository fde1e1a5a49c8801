import { useState } from "react";
import type { ApiKeyCreated } from "./use-keys.js";

/** A new key, which the API gives only once: shown with a copy button until dismissed. */
export function KeyOnce(props: { created: ApiKeyCreated; onDismiss: () => void }) {
  const { created } = props;
  const [copied, setCopied] = useState("");
  async function copy() {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied("Copied.");
    } catch {
      // No clipboard (an address that is not secure, or refused): the field is there to copy.
      setCopied("Could not copy: select the key and copy it.");
    }
  }
  return (
    <div className="secret-once" role="status">
      <h2>Key created: copy it now</h2>
      <p>
        It is shown only this once. {created.name ? `"${created.name}" may` : "It may"}:{" "}
        {created.scopes.join(", ")}.
      </p>
      <label htmlFor="new-key">API key</label>
      <input
        id="new-key"
        className="mono"
        readOnly
        value={created.key}
        onFocus={(e) => e.target.select()}
      />
      <div className="buttons">
        <button type="button" onClick={copy}>
          Copy the key
        </button>
        <button type="button" className="secondary" onClick={props.onDismiss}>
          I have copied it
        </button>
      </div>
      <p className="muted" aria-live="polite">
        {copied}
      </p>
    </div>
  );
}
