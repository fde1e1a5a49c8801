import { useState } from "react";
import { ErrorNote } from "../../components/error-note.js";
import { MutationButton } from "../../components/mutation-button.js";
import { formatInstant, RelativeTime, useNow } from "../../components/time.js";
import { Link, runPath } from "../../router.js";
import type { Profile } from "./profile-types.js";
import { useDeleteProfile } from "./use-delete-profile.js";

/**
 * One profile: its version, when and by which run it was saved, and per cookie domain how many
 * cookies it holds and when the first expires; Delete, asked twice. No value is ever shown: the
 * API gives none.
 */
export function ProfileItem(props: { profile: Profile }) {
  const { profile } = props;
  const [confirming, setConfirming] = useState(false);
  const remove = useDeleteProfile(profile.name);
  const now = useNow();
  return (
    <li className="card profile" data-profile={profile.name}>
      <h3 className="mono">{profile.name}</h3>
      <p className="muted">
        version {profile.version} · saved <RelativeTime iso={profile.updated_at} now={now} /> ·{" "}
        {profile.saved_by_run ? (
          <>
            by run{" "}
            <Link to={runPath(profile.saved_by_run)} className="mono">
              {profile.saved_by_run.slice(0, 16)}…
            </Link>
          </>
        ) : (
          "imported"
        )}{" "}
        · {profile.cookies} {profile.cookies === 1 ? "cookie" : "cookies"}, {profile.bytes} bytes
      </p>
      {profile.domains.length > 0 && (
        <table className="plain profile-domains">
          <caption className="visually-hidden">Cookies of {profile.name} by domain</caption>
          <thead>
            <tr>
              <th scope="col">Domain</th>
              <th scope="col">Cookies</th>
              <th scope="col">First expires</th>
            </tr>
          </thead>
          <tbody>
            {profile.domains.map((domain) => (
              <tr key={domain.domain}>
                <td className="mono">{domain.domain}</td>
                <td>{domain.cookies}</td>
                <td>
                  {domain.earliest_expiry ? (
                    <time dateTime={domain.earliest_expiry}>
                      {formatInstant(domain.earliest_expiry)}
                    </time>
                  ) : (
                    "when the browser closes"
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {profile.origins.length > 0 && (
        <p className="muted">
          localStorage of{" "}
          {profile.origins.map((origin) => `${origin.origin} (${origin.items})`).join(", ")}
        </p>
      )}
      <div className="buttons">
        {confirming ? (
          <>
            <MutationButton mutation={remove} className="danger">
              Delete it and its saved sign-ins
            </MutationButton>
            <button type="button" className="secondary" onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </>
        ) : (
          <button
            type="button"
            className="danger"
            aria-label={`Delete ${profile.name}`}
            onClick={() => setConfirming(true)}
          >
            Delete
          </button>
        )}
      </div>
      <ErrorNote error={remove.error} prefix="The profile could not be deleted" />
    </li>
  );
}
