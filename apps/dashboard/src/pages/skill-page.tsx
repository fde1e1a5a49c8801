import { useQuery } from "@tanstack/react-query";
import { stringify } from "yaml";
import { useApi } from "../api/api-context.js";
import { dataOf } from "../api/errors.js";
import { ErrorNote } from "../components/error-note.js";
import { RunForm } from "../components/run-form/run-form.js";
import { RelativeTime, useNow } from "../components/time.js";
import { Link, useLocation, useTitle } from "../router.js";

/** One skill: what it is, its inputs and definition, and a form that starts a run of it. */
export function SkillPage(props: { id: string }) {
  const { client } = useApi();
  const { search } = useLocation();
  const now = useNow(60_000);
  const skill = useQuery({
    queryKey: ["skill", props.id],
    queryFn: async ({ signal }) =>
      dataOf(await client.GET("/skill/{id}", { params: { path: { id: props.id } }, signal })),
  });
  // "Run again" of a run with secret inputs comes here to have them typed again.
  const againId = search.get("again");
  const again = useQuery({
    queryKey: ["run", againId ?? ""],
    enabled: againId !== null,
    queryFn: async ({ signal }) =>
      dataOf(await client.GET("/run/{id}", { params: { path: { id: againId ?? "" } }, signal })),
  });
  useTitle(skill.data?.name ?? "Skill");
  if (skill.error) {
    return (
      <section>
        <h1>Skill</h1>
        <ErrorNote error={skill.error} prefix={`Skill ${props.id} could not be read`} />
        <p>
          <Link to="/skills">Back to the skills</Link>
        </p>
      </section>
    );
  }
  if (!skill.data) return <p role="status">Loading the skill…</p>;
  const current = skill.data;
  return (
    <article aria-labelledby="skill-title">
      <p className="crumbs">
        <Link to="/skills">Skills</Link> /
      </p>
      <h1 id="skill-title">{current.name}</h1>
      <p className="sub mono">{current.id}</p>
      {current.description && <p>{current.description}</p>}
      <dl className="facts">
        <div>
          <dt>Version</dt>
          <dd className="mono" title={current.x_version}>
            {current.x_version?.slice(0, 12) ?? "—"}
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <RelativeTime iso={current.created_at} now={now} />
          </dd>
        </div>
        <div>
          <dt>Last changed</dt>
          <dd>
            {current.last_modified_at ? (
              <RelativeTime iso={current.last_modified_at} now={now} />
            ) : (
              "—"
            )}
          </dd>
        </div>
        <div>
          <dt>Runs</dt>
          <dd>
            <Link to={`/?skill=${encodeURIComponent(current.id)}`}>See its runs</Link>
          </dd>
        </div>
      </dl>
      <div className="skill-grid">
        <section aria-labelledby="run-form-title">
          <h2 id="run-form-title">Run it</h2>
          {againId && again.data && (
            <p className="note" role="status">
              The inputs of run <span className="mono">{againId}</span>; type its secret inputs
              again.
            </p>
          )}
          <RunForm
            key={again.data?.id ?? "new"}
            skill={current}
            initial={again.data?.inputs ?? undefined}
          />
        </section>
        <section aria-labelledby="inputs-title">
          <h2 id="inputs-title">Inputs</h2>
          {current.inputs.length === 0 ? (
            <p className="muted">None.</p>
          ) : (
            <div className="table-wrap">
              <table className="plain">
                <caption className="visually-hidden">Declared inputs</caption>
                <thead>
                  <tr>
                    <th scope="col">Key</th>
                    <th scope="col">Type</th>
                    <th scope="col">Required</th>
                    <th scope="col">Default</th>
                  </tr>
                </thead>
                <tbody>
                  {current.inputs.map((input) => (
                    <tr key={input.json_key}>
                      <td className="mono">
                        {input.json_key}
                        {input.secret ? " (secret)" : ""}
                        {input.description && <span className="sub">{input.description}</span>}
                      </td>
                      <td>{input.data_type}</td>
                      <td>{input.required === false ? "no" : "yes"}</td>
                      <td className="mono">
                        {input.default === undefined ? "—" : JSON.stringify(input.default)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      </div>
      <section aria-labelledby="definition-title">
        <h2 id="definition-title">Definition</h2>
        <details className="json">
          <summary>The definition as stored (YAML)</summary>
          <pre>{current.x_definition ? stringify(current.x_definition) : "—"}</pre>
        </details>
      </section>
    </article>
  );
}
