import { type Draft, type Schema, typeOf } from "./schema.js";

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
