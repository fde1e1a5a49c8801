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

/** The type a field is made for: the schema's own (null aside), else read from its shape. */
export function typeOf(schema: Schema): string {
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  if (type) return type;
  if (schema.properties) return "object";
  if (schema.enum) return typeof schema.enum[0] === "number" ? "number" : "string";
  return "json";
}
