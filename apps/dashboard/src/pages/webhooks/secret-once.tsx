/** A new endpoint's signing secret, which the API gives only once: shown until dismissed. */
export function SecretOnce(props: { url: string; secret: string; onDismiss: () => void }) {
  return (
    <div className="secret-once" role="status">
      <h2>Endpoint added: copy its signing secret now</h2>
      <p>
        It is shown only this once. Deliveries to <span className="mono">{props.url}</span> are
        signed with it.
      </p>
      <label htmlFor="new-secret">Signing secret</label>
      <input
        id="new-secret"
        className="mono"
        readOnly
        value={props.secret}
        onFocus={(e) => e.target.select()}
      />
      <button type="button" className="secondary" onClick={props.onDismiss}>
        I have copied it
      </button>
    </div>
  );
}
