import { useId } from "react";

/** The part of JSON Schema an `ask` may use (docs/skills.md "Ask"). */
export interface Schema {
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  enum?: unknown[];
  const?: unknown;
  items?: Schema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
}

/** A form value as the user edits it: text per leaf field, by its path. */
export type Draft = Record<string, string | boolean>;

function typeOf(schema: Schema): string {
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  if (type) return type;
  if (schema.properties) return "object";
  if (schema.enum) return typeof schema.enum[0] === "number" ? "number" : "string";
  return "json";
}

/** The answer a draft stands for; throws with the field's name when a field cannot be read. */
export function answerOf(schema: Schema, draft: Draft, path = "input"): unknown {
  const type = typeOf(schema);
  if (type === "object" && schema.properties) {
    const out: Record<string, unknown> = {};
    for (const [name, child] of Object.entries(schema.properties)) {
      const value = answerOf(child, draft, `${path}.${name}`);
      if (value !== undefined) out[name] = value;
    }
    return out;
  }
  const raw = draft[path];
  if (type === "boolean") return raw === true;
  if (raw === undefined || raw === "") return undefined;
  const text = String(raw);
  if (schema.enum) return schema.enum.find((option) => JSON.stringify(option) === text);
  if (type === "number" || type === "integer") return Number(text);
  if (type === "string") return text;
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${path.replace(/^input\.?/, "") || "The answer"}: not valid JSON`);
  }
}

/**
 * Fields generated from a JSON Schema: an object's properties one by one, text, numbers,
 * check boxes and choices for enums; anything else as JSON. `issues` (by path, as the 422's
 * `loc` joined with dots) are shown at their field.
 */
export function SchemaFields(props: {
  schema: Schema;
  draft: Draft;
  onChange: (draft: Draft) => void;
  issues: Record<string, string>;
  path?: string;
  label?: string;
  required?: boolean;
}) {
  const { schema, draft, onChange, issues } = props;
  const path = props.path ?? "input";
  const id = useId();
  const type = typeOf(schema);
  const label = schema.title ?? props.label ?? "Answer";
  if (type === "object" && schema.properties) {
    return (
      <fieldset className="schema-object">
        <legend>{label}</legend>
        {schema.description && <p className="help">{schema.description}</p>}
        {Object.entries(schema.properties).map(([name, child]) => (
          <SchemaFields
            key={name}
            schema={child}
            draft={draft}
            onChange={onChange}
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
  const issue = issues[path];
  const helpId = `${id}-help`;
  const errorId = `${id}-error`;
  const described = [schema.description ? helpId : "", issue ? errorId : ""].filter(Boolean);
  const common = {
    id,
    name: path,
    "aria-invalid": issue ? true : undefined,
    "aria-describedby": described.length ? described.join(" ") : undefined,
  };
  const value = draft[path];
  const set = (next: string | boolean) => onChange({ ...draft, [path]: next });
  let control: React.ReactNode;
  if (type === "boolean") {
    control = (
      <input
        {...common}
        type="checkbox"
        checked={value === true}
        onChange={(e) => set(e.target.checked)}
      />
    );
  } else if (schema.enum) {
    control = (
      <select
        {...common}
        value={String(value ?? "")}
        required={props.required}
        onChange={(e) => set(e.target.value)}
      >
        <option value="">Choose…</option>
        {schema.enum.map((option) => (
          <option key={JSON.stringify(option)} value={JSON.stringify(option)}>
            {String(option)}
          </option>
        ))}
      </select>
    );
  } else if (type === "number" || type === "integer") {
    control = (
      <input
        {...common}
        type="number"
        step={type === "integer" ? 1 : "any"}
        min={schema.minimum}
        max={schema.maximum}
        required={props.required}
        value={String(value ?? "")}
        onChange={(e) => set(e.target.value)}
      />
    );
  } else if (type === "string") {
    control = (
      <input
        {...common}
        type="text"
        required={props.required}
        minLength={schema.minLength}
        maxLength={schema.maxLength}
        value={String(value ?? "")}
        onChange={(e) => set(e.target.value)}
      />
    );
  } else {
    control = (
      <textarea
        {...common}
        rows={3}
        required={props.required}
        value={String(value ?? "")}
        onChange={(e) => set(e.target.value)}
      />
    );
  }
  return (
    <div className={type === "boolean" ? "field field-check" : "field"}>
      <label htmlFor={id}>
        {label}
        {props.required ? <span className="required"> (required)</span> : null}
        {type === "json" || type === "array" ? <span className="muted"> (JSON)</span> : null}
      </label>
      {control}
      {schema.description && (
        <p id={helpId} className="help">
          {schema.description}
        </p>
      )}
      {issue && (
        <p id={errorId} className="error">
          {issue}
        </p>
      )}
    </div>
  );
}
