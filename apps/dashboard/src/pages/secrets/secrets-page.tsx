import { DataTable } from "../../components/data-table.js";
import { ErrorNote } from "../../components/error-note.js";
import { Loading } from "../../components/loading.js";
import { useNow } from "../../components/time.js";
import { useTitle } from "../../router.js";
import { SecretRow } from "./secret-row.js";
import { SetSecretForm } from "./set-secret-form.js";
import { useSecrets } from "./use-secrets.js";

/** The caller's secrets by name (their values never leave the server): set one, delete one. */
export function SecretsPage() {
  useTitle("Secrets");
  const secrets = useSecrets();
  const now = useNow();
  return (
    <section aria-labelledby="secrets-title">
      <h1 id="secrets-title">Secrets</h1>
      <p className="muted">
        Values skills read as <code>secrets.NAME</code>, kept encrypted and shown as{" "}
        <code>***</code> wherever a run would show them. Only their names are listed: a value can be
        replaced, never read back.
      </p>
      <SetSecretForm />
      <h2>Your secrets</h2>
      <ErrorNote error={secrets.error} prefix="The secrets could not be listed" />
      {secrets.isPending && <Loading what="the secrets" />}
      {secrets.data?.length === 0 && <p className="muted">No secrets yet.</p>}
      {secrets.data && secrets.data.length > 0 && (
        <DataTable
          className="secrets"
          caption="Secrets by name"
          headers={["Name", "Value last set"]}
          actions
        >
          {secrets.data.map((secret) => (
            <SecretRow key={secret.name} secret={secret} now={now} />
          ))}
        </DataTable>
      )}
    </section>
  );
}
