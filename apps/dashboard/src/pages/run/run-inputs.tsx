import type { RunSession } from "@skillrun/client";
import { SECRET_MASK } from "../../api/secret-mask.js";

/** The run's inputs as JSON, a secret one (masked by the API) said to be hidden. */
export function RunInputs(props: { inputs: RunSession["inputs"] }) {
  const entries = Object.entries(props.inputs ?? {});
  if (entries.length === 0) return <p className="muted">No inputs.</p>;
  return (
    <dl className="inputs">
      {entries.map(([key, value]) => (
        <div key={key}>
          <dt className="mono">{key}</dt>
          <dd className="mono">
            {value === SECRET_MASK ? (
              <span>
                ••••••<span className="muted"> (secret, hidden)</span>
              </span>
            ) : (
              JSON.stringify(value)
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}
