import { type FormEvent, useState } from "react";
import { CallFailed } from "../../api/errors.js";
import { ErrorNote } from "../../components/error-note.js";
import { controlProps, Field } from "../../components/field.js";
import { useSetSecret } from "./use-secrets.js";

/** The refusal's message about the name (`loc` `["path", "name"]`) or the value, if any. */
function issueAt(error: unknown, where: string, field: string): string | undefined {
  if (!(error instanceof CallFailed)) return undefined;
  return error.issues.find((issue) => issue.loc[0] === where && issue.loc[1] === field)?.msg;
}

/**
 * Sets a secret: its name and its value in a password field (never shown, never read back); the
 * server's refusal shown at its field. The value is forgotten once set.
 */
export function SetSecretForm() {
  const [name, setName] = useState("");
  const [value, setValue] = useState("");
  const [done, setDone] = useState("");
  const set = useSetSecret((saved) => {
    setValue("");
    setDone(`Secret ${saved} set. Skills read it as secrets.${saved}.`);
  });
  const nameIssue = issueAt(set.error, "path", "name");
  const valueIssue = issueAt(set.error, "body", "value");
  function submit(event: FormEvent) {
    event.preventDefault();
    setDone("");
    set.mutate({ name, value });
  }
  return (
    <form
      className="card set-secret"
      onSubmit={submit}
      noValidate
      aria-labelledby="set-secret-title"
    >
      <h2 id="set-secret-title">Set a secret</h2>
      <Field
        id="secret-name"
        label="Name"
        check={false}
        help="A letter or _, then letters, digits or _. Setting an existing name replaces its value."
        issue={nameIssue}
      >
        <input
          {...controlProps("secret-name", true, nameIssue)}
          className="mono"
          required
          autoComplete="off"
          spellCheck={false}
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
      </Field>
      <Field id="secret-value" label="Value" check={false} help={undefined} issue={valueIssue}>
        <input
          {...controlProps("secret-value", undefined, valueIssue)}
          type="password"
          required
          autoComplete="new-password"
          value={value}
          onChange={(e) => setValue(e.target.value)}
        />
      </Field>
      {!nameIssue && !valueIssue && <ErrorNote error={set.error} prefix="Not set" />}
      <button type="submit" disabled={set.isPending}>
        Set secret
      </button>
      <p className="muted" role="status">
        {done}
      </p>
    </form>
  );
}
