import { ErrorNote } from "../../components/error-note.js";
import { Loading } from "../../components/loading.js";
import { useTitle } from "../../router.js";
import { ProfileItem } from "./profile-item.js";
import { useProfiles } from "./use-profiles.js";

/** The caller's browser profiles (saved sign-ins): what each holds, described; delete. */
export function ProfilesPage() {
  useTitle("Profiles");
  const profiles = useProfiles();
  return (
    <section aria-labelledby="profiles-title">
      <h1 id="profiles-title">Browser profiles</h1>
      <p className="muted">
        A profile is a browser's saved cookies and localStorage, such as a site's sign-in: a skill
        that names it with <code>profile:</code> starts signed in. Values are stored encrypted and
        never shown.
      </p>
      <ErrorNote error={profiles.error} prefix="The profiles could not be listed" />
      {!profiles.data && !profiles.error && <Loading what="the profiles" />}
      {profiles.data?.length === 0 && (
        <p className="muted">No profiles yet: a run of a skill that saves one makes it.</p>
      )}
      <ul className="profiles">
        {profiles.data?.map((profile) => (
          <ProfileItem key={profile.name} profile={profile} />
        ))}
      </ul>
    </section>
  );
}
