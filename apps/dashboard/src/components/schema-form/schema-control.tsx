import type { controlProps } from "../field.js";
import type { Schema } from "./schema.js";

/**
 * The control for one leaf of a schema, by its type: a check box, a choice for an enum, a number
 * or text field within the schema's bounds, and a text area of JSON for anything else.
 */
export function SchemaControl(props: {
  schema: Schema;
  type: string;
  common: ReturnType<typeof controlProps>;
  required: boolean | undefined;
  value: string | boolean | undefined;
  onChange: (value: string | boolean) => void;
}) {
  const { schema, type, common, required, onChange } = props;
  const text = String(props.value ?? "");
  if (type === "boolean") {
    return (
      <input
        {...common}
        type="checkbox"
        checked={props.value === true}
        onChange={(e) => onChange(e.target.checked)}
      />
    );
  }
  if (schema.enum) {
    return (
      <select
        {...common}
        value={text}
        required={required}
        onChange={(e) => onChange(e.target.value)}
      >
        <option value="">Choose…</option>
        {schema.enum.map((option) => (
          <option key={JSON.stringify(option)} value={JSON.stringify(option)}>
            {String(option)}
          </option>
        ))}
      </select>
    );
  }
  if (type === "number" || type === "integer") {
    return (
      <input
        {...common}
        type="number"
        step={type === "integer" ? 1 : "any"}
        min={schema.minimum}
        max={schema.maximum}
        required={required}
        value={text}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  }
  if (type === "string") {
    return (
      <input
        {...common}
        type="text"
        required={required}
        minLength={schema.minLength}
        maxLength={schema.maxLength}
        value={text}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  }
  return (
    <textarea
      {...common}
      rows={3}
      required={required}
      value={text}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}
