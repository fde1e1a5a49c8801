import type { Input } from "@skillrun/client";
import { DataTable } from "../../components/data-table.js";

/** The skill's declared inputs as a table: key (and whether secret), type, required, default. */
export function SkillInputs(props: { inputs: Input[] }) {
  if (props.inputs.length === 0) return <p className="muted">None.</p>;
  return (
    <DataTable
      className="plain"
      caption="Declared inputs"
      headers={["Key", "Type", "Required", "Default"]}
    >
      {props.inputs.map((input) => (
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
    </DataTable>
  );
}
