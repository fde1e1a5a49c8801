import type { Skill } from "@skillrun/client";
import { stringify } from "yaml";
import { Section } from "../../components/section.js";

/** The skill's definition as stored, in YAML as it is written, collapsed. */
export function SkillDefinition(props: { definition: Skill["x_definition"] }) {
  return (
    <Section name="definition" title="Definition">
      <details className="json">
        <summary>The definition as stored (YAML)</summary>
        <pre>{props.definition ? stringify(props.definition) : "—"}</pre>
      </details>
    </Section>
  );
}
