import { isTerminalState, type RunSession, type RunSessionState } from "@skillrun/client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useApi } from "../api/api-context.js";
import { dataOf } from "../api/errors.js";
import { nextCursor } from "../api/next-cursor.js";
import { CancelButton } from "../components/cancel-button.js";
import { ErrorNote } from "../components/error-note.js";
import { RunState } from "../components/run-state.js";
import { RelativeTime, RunDuration, useNow } from "../components/time.js";
import { type RunsFilters, type RunsPageData, runsListKey } from "../live/query-keys.js";
import { Link, navigate, useLocation, useTitle } from "../router.js";

const PAGE_SIZE = 25;

const STATES: { value: string; label: string }[] = [
  { value: "", label: "Any state" },
  { value: "queued", label: "Queued" },
  { value: "play", label: "Running" },
  { value: "pause", label: "Paused" },
  { value: "finish", label: "Finished" },
  { value: "reset", label: "Failed" },
  { value: "cancel", label: "Cancelled" },
  { value: "timeout", label: "Timed out" },
  { value: "editing", label: "Editing" },
];

type StateFilter = "queued" | RunSessionState;

/** The caller's runs, newest first: filters, cursor paging, live from the run stream. */
export function RunsPage() {
  useTitle("Runs");
  const { client, $api } = useApi();
  const { search } = useLocation();
  const filters: RunsFilters = {
    skill: search.get("skill") ?? "",
    state: search.get("state") ?? "",
  };
  // The cursors of the pages before this one, to go back; the current page's own.
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  // By the second: the durations of runs under way move.
  const now = useNow(1_000);
  const skills = $api.useQuery("get", "/skill/list");

  const runs = useQuery({
    queryKey: runsListKey(filters, cursor),
    placeholderData: keepPreviousData,
    queryFn: async ({ signal }): Promise<RunsPageData> => {
      const result = await client.GET("/run/list", {
        params: {
          query: {
            limit: PAGE_SIZE,
            ...(filters.skill && { skill_id: filters.skill }),
            ...(filters.state && { state_filter: [filters.state as StateFilter] }),
            ...(cursor && { cursor }),
          },
        },
        signal,
      });
      return {
        runs: dataOf(result),
        next: nextCursor(result.response),
        first: cursor === undefined,
        matches: (run: RunSession) =>
          (!filters.skill || run.skill_id === filters.skill) &&
          (!filters.state || (run.state ?? "queued") === filters.state),
      };
    },
  });

  function setFilter(name: keyof RunsFilters, value: string) {
    const next = new URLSearchParams(search);
    if (value) next.set(name, value);
    else next.delete(name);
    setCursors([]);
    const query = next.toString();
    navigate(query ? `/?${query}` : "/", { replace: true });
  }

  const filtered = Boolean(filters.skill || filters.state);
  const page = runs.data;
  return (
    <section aria-labelledby="runs-title">
      <h1 id="runs-title">Runs</h1>
      <form
        className="filters"
        aria-label="Filter runs"
        onSubmit={(event) => event.preventDefault()}
      >
        <div className="field">
          <label htmlFor="filter-skill">Skill</label>
          <select
            id="filter-skill"
            value={filters.skill}
            onChange={(event) => setFilter("skill", event.target.value)}
          >
            <option value="">Any skill</option>
            {skills.data?.map((skill) => (
              <option key={skill.id} value={skill.id}>
                {skill.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="filter-state">State</label>
          <select
            id="filter-state"
            value={filters.state}
            onChange={(event) => setFilter("state", event.target.value)}
          >
            {STATES.map((state) => (
              <option key={state.value} value={state.value}>
                {state.label}
              </option>
            ))}
          </select>
        </div>
      </form>
      <ErrorNote error={runs.error} prefix="The runs could not be listed" />
      {runs.isPending && <p role="status">Loading runs…</p>}
      {page && page.runs.length === 0 && page.first && !filtered && <FirstRun />}
      {page && page.runs.length === 0 && (filtered || !page.first) && (
        <p role="status">No run matches these filters.</p>
      )}
      {page && page.runs.length > 0 && (
        <div className="table-wrap">
          <table className="runs">
            <caption className="visually-hidden">
              Runs, newest first{filtered ? ", filtered" : ""}
            </caption>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">State</th>
                <th scope="col">Started</th>
                <th scope="col">Duration</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {page.runs.map((run) => (
                <tr key={run.id} data-run={run.id}>
                  <td>
                    <Link to={`/runs/${encodeURIComponent(run.id)}`} className="run-name">
                      {run.name ?? run.skill_id}
                    </Link>
                    <span className="sub mono">{run.id}</span>
                  </td>
                  <td>
                    <RunState state={run.state} />
                  </td>
                  <td>
                    <RelativeTime iso={run.start_time} now={now} />
                  </td>
                  <td>
                    {run.state === null || run.state === undefined ? (
                      "—"
                    ) : (
                      <RunDuration start={run.start_time} end={run.end_time} now={now} />
                    )}
                  </td>
                  <td className="actions">
                    {!isTerminalState(run.state) && (
                      <CancelButton id={run.id} label={`Cancel ${run.name ?? run.skill_id}`} />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {(cursors.length > 0 || page?.next) && (
        <nav className="pager" aria-label="Pages of runs">
          <button
            type="button"
            className="secondary"
            disabled={cursors.length === 0}
            onClick={() => setCursors(cursors.slice(0, -1))}
          >
            Newer runs
          </button>
          <button
            type="button"
            className="secondary"
            disabled={!page?.next}
            onClick={() => page?.next && setCursors([...cursors, page.next])}
          >
            Older runs
          </button>
        </nav>
      )}
    </section>
  );
}

function FirstRun() {
  return (
    <div className="empty" role="status">
      <h2>No runs yet</h2>
      <p>
        A run is one execution of a skill. Open <Link to="/skills">Skills</Link>, choose one (the
        demo server has <em>Order in the demo shop</em>, which needs no inputs) and press{" "}
        <strong>Run</strong>. It appears here at once and changes as it goes.
      </p>
      <p>From a terminal, with your key in KEY:</p>
      <pre>
        {`curl -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \\
     -d '{"skill_id": "skill_demo_shop_order"}' ${window.location.origin}/v1/run/`}
      </pre>
    </div>
  );
}
