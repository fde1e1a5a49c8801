import { type FormEvent, useState } from "react";
import { messageOf } from "../api/errors.js";
import { clientFor } from "../api/session.js";
import { useTitle } from "../router.js";

/** Asks for an API key and checks it with one call before keeping it. */
export function SignIn(props: {
  note: string | null;
  onSignedIn: (key: string, remember: boolean) => void;
}) {
  useTitle("Sign in");
  const [key, setKey] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [remember, setRemember] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const trimmed = key.trim();
    if (!trimmed) {
      setError("Enter an API key.");
      return;
    }
    setBusy(true);
    setError(null);
    try {
      let refused = false;
      const client = clientFor(trimmed, () => {
        refused = true;
      });
      const { response } = await client.GET("/skill/list");
      if (refused) setError("The server did not accept this API key.");
      else if (!response.ok) setError(`The server answered ${response.status}.`);
      else props.onSignedIn(trimmed, remember);
    } catch (caught) {
      setError(`The server could not be reached: ${messageOf(caught)}`);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" className="sign-in">
      <h1>Sign in to Skillrun</h1>
      {props.note && (
        <p className="note" role="status">
          {props.note}
        </p>
      )}
      <form onSubmit={submit} noValidate>
        <label htmlFor="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autoComplete="off"
          spellCheck={false}
          value={key}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? "api-key-error api-key-help" : "api-key-help"}
          onChange={(event) => setKey(event.target.value)}
        />
        <p id="api-key-help" className="help">
          A key starts with <code>sk_</code>. <code>npm start</code> prints one for the owner{" "}
          <code>demo</code>; <code>skillrun keys create --owner NAME</code> makes others.
        </p>
        <label className="check">
          <input
            name="remember"
            type="checkbox"
            checked={remember}
            aria-describedby="remember-help"
            onChange={(event) => setRemember(event.target.checked)}
          />{" "}
          Remember on this device
        </label>
        <p id="remember-help" className="help">
          The key is kept in this tab only, until you sign out or close it. Remembered, it is kept
          in this browser for every tab until you sign out: not on a shared computer.
        </p>
        {error && (
          <p id="api-key-error" className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? "Checking…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
