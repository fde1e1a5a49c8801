import { type FormEvent, useState } from "react";
import { CallFailed } from "../../api/errors.js";
import { ErrorNote } from "../../components/error-note.js";
import { controlProps, Field } from "../../components/field.js";
import { type ApiKeyCreated, KEY_SCOPES, type KeyScope, useCreateKey } from "./use-keys.js";

/** The refusal's message about one field of the body, if any. */
function issueAt(error: unknown, field: string): string | undefined {
  if (!(error instanceof CallFailed)) return undefined;
  return error.issues.find((issue) => issue.loc[0] === "body" && issue.loc[1] === field)?.msg;
}

/** Creates a key: what it is for and its scopes (reading runs by default). */
export function CreateKeyForm(props: { onCreated: (key: ApiKeyCreated) => void }) {
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<KeyScope[]>(["runs:read"]);
  const create = useCreateKey((created) => {
    setName("");
    props.onCreated(created);
  });
  const nameIssue = issueAt(create.error, "name");
  const scopesIssue = issueAt(create.error, "scopes");
  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate({ name, scopes });
  }
  function toggle(scope: KeyScope, on: boolean) {
    setScopes((old) => KEY_SCOPES.filter((known) => (known === scope ? on : old.includes(known))));
  }
  return (
    <form
      className="card create-key"
      onSubmit={submit}
      noValidate
      aria-labelledby="create-key-title"
    >
      <h2 id="create-key-title">Create a key</h2>
      <Field
        id="key-name"
        label="What it is for (optional)"
        check={false}
        help={undefined}
        issue={nameIssue}
      >
        <input
          {...controlProps("key-name", undefined, nameIssue)}
          maxLength={100}
          autoComplete="off"
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
      </Field>
      <fieldset aria-describedby={scopesIssue ? "key-scopes-error" : undefined}>
        <legend>Scopes: what the key may do</legend>
        <div className="scopes">
          {KEY_SCOPES.map((scope) => (
            <label key={scope} className="check">
              <input
                type="checkbox"
                name="scopes"
                value={scope}
                checked={scopes.includes(scope)}
                onChange={(e) => toggle(scope, e.target.checked)}
              />{" "}
              <span className="mono">{scope}</span>
              {scope === "admin" ? " (all of them)" : ""}
            </label>
          ))}
        </div>
        {scopesIssue && (
          <p id="key-scopes-error" className="error">
            {scopesIssue}
          </p>
        )}
      </fieldset>
      {!nameIssue && !scopesIssue && <ErrorNote error={create.error} prefix="Not created" />}
      <button type="submit" disabled={create.isPending}>
        Create key
      </button>
    </form>
  );
}
