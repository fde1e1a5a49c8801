import { useState } from "react";
import { CallFailed } from "../../api/errors.js";
import { storedKey } from "../../api/session.js";
import { DataTable } from "../../components/data-table.js";
import { ErrorNote } from "../../components/error-note.js";
import { Loading } from "../../components/loading.js";
import { useNow } from "../../components/time.js";
import { useTitle } from "../../router.js";
import { CreateKeyForm } from "./create-key-form.js";
import { KeyOnce } from "./key-once.js";
import { KeyRow } from "./key-row.js";
import { type ApiKeyCreated, useKeys } from "./use-keys.js";

/** The caller's API keys with their scopes: create one (shown once), revoke one. */
export function KeysPage() {
  useTitle("API keys");
  const keys = useKeys();
  const now = useNow();
  const [created, setCreated] = useState<ApiKeyCreated | null>(null);
  const signedInWith = storedKey.read() ?? "";
  const forbidden = keys.error instanceof CallFailed && keys.error.status === 403;
  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <p className="muted">
        Each key acts for you with the scopes it was given; a missing scope is refused with a 403
        naming it. A key is shown once, when it is created: the server keeps only its hash.
      </p>
      {created && <KeyOnce created={created} onDismiss={() => setCreated(null)} />}
      {forbidden ? (
        <p className="note">
          The key you signed in with may not manage keys: that takes the <code>keys:write</code>{" "}
          scope (or <code>admin</code>).
        </p>
      ) : (
        <CreateKeyForm onCreated={setCreated} />
      )}
      <h2>Your keys</h2>
      {!forbidden && <ErrorNote error={keys.error} prefix="The keys could not be listed" />}
      {keys.isPending && <Loading what="the keys" />}
      {keys.data && (
        <DataTable
          className="keys"
          caption="API keys, oldest first"
          headers={["Key", "Scopes", "Created"]}
          actions
        >
          {keys.data.map((apiKey) => (
            <KeyRow
              key={apiKey.id}
              apiKey={apiKey}
              now={now}
              current={signedInWith.startsWith(apiKey.prefix)}
            />
          ))}
        </DataTable>
      )}
    </section>
  );
}
