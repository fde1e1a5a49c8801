import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { ApiProvider } from "./api/api-context.js";
import { clientFor, storedKey } from "./api/session.js";
import { useRunStream } from "./live/run-stream.js";
import { AgentsPage } from "./pages/agents/agents-page.js";
import { KeysPage } from "./pages/keys/keys-page.js";
import { OverviewPage } from "./pages/overview/overview-page.js";
import { ProfilesPage } from "./pages/profiles/profiles-page.js";
import { RunPage } from "./pages/run/run-page.js";
import { RunsPage } from "./pages/runs/runs-page.js";
import { SchedulesPage } from "./pages/schedules/schedules-page.js";
import { SecretsPage } from "./pages/secrets/secrets-page.js";
import { SignIn } from "./pages/sign-in.js";
import { SkillPage } from "./pages/skill/skill-page.js";
import { SkillsPage } from "./pages/skills-page.js";
import { WebhooksPage } from "./pages/webhooks/webhooks-page.js";
import { Link, useLocation } from "./router.js";

/** Signed in (a key kept by storedKey) or not; a 401 anywhere signs out with a note. */
export function App() {
  const queryClient = useQueryClient();
  const [key, setKey] = useState(storedKey.read);
  const [note, setNote] = useState<string | null>(null);
  const signOut = useCallback(
    (why?: string) => {
      storedKey.clear();
      queryClient.clear();
      setNote(why ?? null);
      setKey(null);
    },
    [queryClient],
  );
  const client = useMemo(
    () =>
      key === null
        ? null
        : clientFor(key, () => signOut("The server did not accept the API key: sign in again.")),
    [key, signOut],
  );
  if (client === null) {
    return (
      <SignIn
        note={note}
        onSignedIn={(accepted, remember) => {
          storedKey.write(accepted, remember);
          setNote(null);
          setKey(accepted);
        }}
      />
    );
  }
  return (
    <ApiProvider client={client} signOut={() => signOut()}>
      <Shell onSignOut={() => signOut()} />
    </ApiProvider>
  );
}

const SECTIONS = [
  { to: "/", label: "Runs", matches: (path: string) => path === "/" || path.startsWith("/runs") },
  { to: "/overview", label: "Overview", matches: (path: string) => path.startsWith("/overview") },
  { to: "/skills", label: "Skills", matches: (path: string) => path.startsWith("/skills") },
  {
    to: "/schedules",
    label: "Schedules",
    matches: (path: string) => path.startsWith("/schedules"),
  },
  { to: "/profiles", label: "Profiles", matches: (path: string) => path.startsWith("/profiles") },
  { to: "/webhooks", label: "Webhooks", matches: (path: string) => path.startsWith("/webhooks") },
  { to: "/secrets", label: "Secrets", matches: (path: string) => path.startsWith("/secrets") },
  { to: "/keys", label: "API keys", matches: (path: string) => path.startsWith("/keys") },
  { to: "/agents", label: "Agents", matches: (path: string) => path.startsWith("/agents") },
];

function Shell(props: { onSignOut: () => void }) {
  const { path } = useLocation();
  useRunStream();
  // On a new page, focus moves to its content, so a screen reader reads it from the start and
  // the keyboard goes on from there; not on the first page, where the browser starts.
  const shown = useRef(path);
  useEffect(() => {
    if (shown.current === path) return;
    shown.current = path;
    document.getElementById("main")?.focus();
  }, [path]);
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Skillrun</span>
        <nav aria-label="Sections">
          <ul>
            {SECTIONS.map((section) => (
              <li key={section.to}>
                <Link to={section.to} aria-current={section.matches(path) ? "page" : undefined}>
                  {section.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" className="secondary" onClick={props.onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Page path={path} />
      </main>
    </>
  );
}

function Page(props: { path: string }) {
  const parts = props.path.split("/").filter(Boolean).map(decodeURIComponent);
  if (parts.length === 0) return <RunsPage />;
  if (parts[0] === "runs" && parts[1]) return <RunPage id={parts[1]} />;
  if (parts[0] === "skills" && parts[1]) return <SkillPage id={parts[1]} />;
  if (parts[0] === "skills") return <SkillsPage />;
  if (parts[0] === "schedules") return <SchedulesPage />;
  if (parts[0] === "profiles") return <ProfilesPage />;
  if (parts[0] === "webhooks") return <WebhooksPage />;
  if (parts[0] === "secrets") return <SecretsPage />;
  if (parts[0] === "overview") return <OverviewPage />;
  if (parts[0] === "keys") return <KeysPage />;
  if (parts[0] === "agents") return <AgentsPage />;
  return (
    <section>
      <h1>Not found</h1>
      <p>
        Nothing is at this address. <Link to="/">See the runs</Link>.
      </p>
    </section>
  );
}
