import type { SchemaObject } from "ajv/dist/2020.js";
import { isRecord } from "./describe.js";
import { durationMs, MAX_DURATION_MS, tooLongMessage } from "./duration.js";
import type { DefinitionProblem, PathSegment } from "./problem.js";
import { skillDefinitionSchema } from "./schema.js";

// JSON Schema's `pattern` cannot say "at most 24h", so durations are found by walking the value
// beside the schema: wherever the schema says `$ref: #/$defs/duration`, the value is a duration
// (skill and step `timeout`, `retry.backoff`, `wait`, an http `timeout`, and any kind added later).

const DURATION_REF = "#/$defs/duration";
const DEFS_PREFIX = "#/$defs/";

/** The durations of a definition longer than MAX_DURATION_MS, one problem each. */
export function durationProblems(value: unknown): DefinitionProblem[] {
  const found = new Map<string, DefinitionProblem>();
  walk(skillDefinitionSchema, value, [], found);
  return [...found.values()];
}

function walk(
  schema: unknown,
  value: unknown,
  path: PathSegment[],
  found: Map<string, DefinitionProblem>,
): void {
  if (!isRecord(schema)) return;
  const reference = schema.$ref;
  if (reference === DURATION_REF) {
    const ms = typeof value === "string" ? durationMs(value) : undefined;
    if (ms !== undefined && ms > MAX_DURATION_MS) {
      // A step is tried against every kind's schema (`oneOf`): report each place once.
      found.set(JSON.stringify(path), {
        path,
        at: "value",
        message: tooLongMessage(value as string),
      });
    }
    return;
  }
  if (typeof reference === "string" && reference.startsWith(DEFS_PREFIX)) {
    const defs = skillDefinitionSchema.$defs as Record<string, SchemaObject>;
    walk(defs[reference.slice(DEFS_PREFIX.length)], value, path, found);
  }
  for (const key of ["oneOf", "anyOf", "allOf"] as const) {
    const alternatives = schema[key];
    if (Array.isArray(alternatives))
      for (const part of alternatives) walk(part, value, path, found);
  }
  if (isRecord(schema.properties) && isRecord(value)) {
    for (const [key, part] of Object.entries(schema.properties)) {
      if (key in value) walk(part, value[key], [...path, key], found);
    }
  }
  if (schema.items !== undefined && Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      walk(schema.items, item, [...path, index], found);
    }
  }
}
