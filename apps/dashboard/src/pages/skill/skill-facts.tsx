import type { Skill } from "@skillrun/client";
import { RelativeTime, useNow } from "../../components/time.js";
import { Link } from "../../router.js";

/** The skill's version (its first 12 characters, the whole in the title), dates, and its runs. */
export function SkillFacts(props: { skill: Skill }) {
  const { skill } = props;
  const now = useNow(60_000);
  return (
    <dl className="facts">
      <div>
        <dt>Version</dt>
        <dd className="mono" title={skill.x_version}>
          {skill.x_version?.slice(0, 12) ?? "—"}
        </dd>
      </div>
      <div>
        <dt>Created</dt>
        <dd>
          <RelativeTime iso={skill.created_at} now={now} />
        </dd>
      </div>
      <div>
        <dt>Last changed</dt>
        <dd>
          {skill.last_modified_at ? <RelativeTime iso={skill.last_modified_at} now={now} /> : "—"}
        </dd>
      </div>
      <div>
        <dt>Runs</dt>
        <dd>
          <Link to={`/?skill=${encodeURIComponent(skill.id)}`}>See its runs</Link>
        </dd>
      </div>
    </dl>
  );
}
