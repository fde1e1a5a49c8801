import type { Skill } from "@skillrun/client";
import { stringify } from "yaml";

/** The skill's definition as stored, in YAML as it is written, collapsed. */
export function SkillDefinition(props: { definition: Skill["x_definition"] }) {
  return (
    <section aria-labelledby="definition-title">
      <h2 id="definition-title">Definition</h2>
      <details className="json">
        <summary>The definition as stored (YAML)</summary>
        <pre>{props.definition ? stringify(props.definition) : "—"}</pre>
      </details>
    </section>
  );
}
