import { useApi } from "../api/api-context.js";
import { ErrorNote } from "../components/error-note.js";
import { Loading } from "../components/loading.js";
import { RelativeTime, useNow } from "../components/time.js";
import { Link, skillPath, useTitle } from "../router.js";

/** The caller's skills, by name. */
export function SkillsPage() {
  useTitle("Skills");
  const { $api } = useApi();
  const skills = $api.useQuery("get", "/skill/list");
  const now = useNow(60_000);
  return (
    <section aria-labelledby="skills-title">
      <h1 id="skills-title">Skills</h1>
      <ErrorNote error={skills.error} prefix="The skills could not be listed" />
      {skills.isPending && <Loading what="skills" />}
      {skills.data?.length === 0 && (
        <p className="empty">
          No skills yet. Send one with <code>PUT /v1/skill/&lt;id&gt;</code> (see the API reference
          at <a href="/docs">/docs</a>) or <code>skillrun skills import</code>.
        </p>
      )}
      {skills.data && skills.data.length > 0 && (
        <ul className="cards">
          {skills.data.map((skill) => (
            <li key={skill.id} className="card">
              <h2>
                <Link to={skillPath(skill.id)}>{skill.name}</Link>
              </h2>
              <p className="sub mono">{skill.id}</p>
              {skill.description && <p>{skill.description}</p>}
              <p className="muted">
                {skill.inputs.length === 0
                  ? "No inputs"
                  : `Inputs: ${skill.inputs.map((input) => input.json_key).join(", ")}`}
                {" · changed "}
                <RelativeTime iso={skill.last_modified_at ?? skill.created_at} now={now} />
              </p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
