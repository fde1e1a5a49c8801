import { useState } from "react";
import { Loading } from "../../components/loading.js";
import { RunForm } from "../../components/run-form/run-form.js";
import { Section } from "../../components/section.js";
import { Unreadable } from "../../components/unreadable.js";
import { Link, useTitle } from "../../router.js";
import { ScheduleForm } from "../schedules/schedule-form.js";
import { RunWhen } from "./run-when.js";
import { SkillDefinition } from "./skill-definition.js";
import { SkillFacts } from "./skill-facts.js";
import { SkillInputs } from "./skill-inputs.js";
import { useAgainRun } from "./use-again-run.js";
import { useSkill } from "./use-skill.js";

/** One skill: what it is, its inputs and definition, and a form that starts a run of it. */
export function SkillPage(props: { id: string }) {
  const skill = useSkill(props.id);
  const again = useAgainRun();
  // The run form starts a run now; switched, the same inputs and a cron make a schedule.
  const [scheduling, setScheduling] = useState(false);
  useTitle(skill.data?.name ?? "Skill");
  if (skill.error) {
    return (
      <Unreadable
        title="Skill"
        error={skill.error}
        prefix={`Skill ${props.id} could not be read`}
        back={{ to: "/skills", text: "Back to the skills" }}
      />
    );
  }
  if (!skill.data) return <Loading what="the skill" />;
  const current = skill.data;
  return (
    <article aria-labelledby="skill-title">
      <p className="crumbs">
        <Link to="/skills">Skills</Link> /
      </p>
      <h1 id="skill-title">{current.name}</h1>
      <p className="sub mono">{current.id}</p>
      {current.description && <p>{current.description}</p>}
      <SkillFacts skill={current} />
      <div className="skill-grid">
        <Section name="run-form" title="Run it">
          {again.againId && again.run && (
            <p className="note" role="status">
              The inputs of run <span className="mono">{again.againId}</span>; type its secret
              inputs again.
            </p>
          )}
          <RunWhen scheduling={scheduling} onChange={setScheduling} />
          {scheduling ? (
            <ScheduleForm skill={current} />
          ) : (
            // A new form once the run to run again is read: its first values are that run's.
            <RunForm
              key={again.run?.id ?? "new"}
              skill={current}
              initial={again.run?.inputs ?? undefined}
            />
          )}
        </Section>
        <Section name="inputs" title="Inputs">
          <SkillInputs inputs={current.inputs} />
        </Section>
      </div>
      <SkillDefinition definition={current.x_definition} />
    </article>
  );
}
