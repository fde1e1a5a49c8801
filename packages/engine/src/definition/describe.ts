// Words for values and types in messages, in YAML terms (map, list) since skills are YAML.

const TYPE_WORDS: Record<string, string> = {
  string: "a string",
  number: "a number",
  integer: "a whole number",
  boolean: "true or false",
  array: "a list",
  object: "a map",
  null: "nothing",
};

/** `["string", "object"]` → `a string or a map`. */
export function describeTypes(types: readonly string[]): string {
  return types.map((type) => TYPE_WORDS[type] ?? type).join(" or ");
}

/** Describes what was found: scalars literally (`42`, `"hi"`), containers by kind. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return "nothing";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a map";
  if (typeof value === "string") return quote(value);
  return String(value);
}

/** Quotes text for a message, shortening it when long. */
export function quote(text: string): string {
  const shown = text.length > 40 ? `${text.slice(0, 37)}...` : text;
  return JSON.stringify(shown);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
