import type { Skill } from "@skillrun/client";
import { Fact } from "../../components/fact.js";
import { RelativeTime, useNow } from "../../components/time.js";
import { Link } from "../../router.js";

/** The skill's version (its first 12 characters, the whole in the title), dates, and its runs. */
export function SkillFacts(props: { skill: Skill }) {
  const { skill } = props;
  const now = useNow(60_000);
  return (
    <dl className="facts">
      <Fact term="Version" className="mono" title={skill.x_version}>
        {skill.x_version?.slice(0, 12) ?? "—"}
      </Fact>
      <Fact term="Created">
        <RelativeTime iso={skill.created_at} now={now} />
      </Fact>
      <Fact term="Last changed">
        {skill.last_modified_at ? <RelativeTime iso={skill.last_modified_at} now={now} /> : "—"}
      </Fact>
      <Fact term="Runs">
        <Link to={`/?skill=${encodeURIComponent(skill.id)}`}>See its runs</Link>
      </Fact>
    </dl>
  );
}
