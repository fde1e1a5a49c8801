import { useId } from "react";
import { controlProps, Field } from "../field.js";
import type { Draft, Schema } from "./schema.js";
import { typeOf } from "./schema.js";
import { SchemaControl } from "./schema-control.js";

interface FieldsProps {
  schema: Schema;
  draft: Draft;
  onChange: (draft: Draft) => void;
  issues: Record<string, string>;
  path?: string;
  label?: string;
  required?: boolean;
}

/**
 * Fields generated from a JSON Schema: an object's properties one by one, text, numbers,
 * check boxes and choices for enums; anything else as JSON. `issues` (by path, as the 422's
 * `loc` joined with dots) are shown at their field.
 */
export function SchemaFields(props: FieldsProps) {
  const { schema, issues } = props;
  const path = props.path ?? "input";
  if (typeOf(schema) !== "object" || !schema.properties) return <SchemaField {...props} />;
  return (
    <fieldset className="schema-object">
      <legend>{schema.title ?? props.label ?? "Answer"}</legend>
      {schema.description && <p className="help">{schema.description}</p>}
      {Object.entries(schema.properties).map(([name, child]) => (
        <SchemaFields
          key={name}
          schema={child}
          draft={props.draft}
          onChange={props.onChange}
          issues={issues}
          path={`${path}.${name}`}
          label={name}
          required={schema.required?.includes(name) ?? false}
        />
      ))}
      {issues[path] && <p className="error">{issues[path]}</p>}
    </fieldset>
  );
}

/** One leaf of the schema: its labelled control, which edits the draft at its path. */
function SchemaField(props: FieldsProps) {
  const { schema, draft, onChange } = props;
  const path = props.path ?? "input";
  const id = useId();
  const type = typeOf(schema);
  const issue = props.issues[path];
  const label = (
    <>
      {schema.title ?? props.label ?? "Answer"}
      {props.required ? <span className="required"> (required)</span> : null}
      {type === "json" || type === "array" ? <span className="muted"> (JSON)</span> : null}
    </>
  );
  return (
    <Field id={id} label={label} check={type === "boolean"} help={schema.description} issue={issue}>
      <SchemaControl
        schema={schema}
        type={type}
        common={controlProps(id, schema.description, issue, path)}
        required={props.required}
        value={draft[path]}
        onChange={(next) => onChange({ ...draft, [path]: next })}
      />
    </Field>
  );
}
