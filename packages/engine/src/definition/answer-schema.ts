import {
  Ajv2020,
  type ErrorObject,
  type SchemaObject,
  type ValidateFunction,
} from "ajv/dist/2020.js";
import type { PathSegment } from "./problem.js";

// What an `ask` step may say of its answer, and how an answer is checked against it. The answer
// comes from a client and is checked on the API's own thread, so the schema is a subset of JSON
// Schema whose checking takes time in proportion to the answer whatever the skill says: no
// `pattern` (a hostile regular expression could stall the API), no `format`, no references.

const JSON_TYPES = ["string", "number", "integer", "boolean", "object", "array", "null"];
const count: SchemaObject = { type: "integer", minimum: 0 };
const bound: SchemaObject = { type: "number" };

/** How deep an answer schema may nest (`properties` or `items` inside one another). */
export const MAX_ANSWER_SCHEMA_DEPTH = 8;
/** The largest answer schema, as JSON. */
export const MAX_ANSWER_SCHEMA_BYTES = 16 * 1024;

/**
 * The `$defs` entry of the skill definition schema that an ask's `schema` is checked against at
 * import: unknown keywords (`pattern`, `$ref`) are refused there, at their line.
 */
export const answerSchemaDefinition: SchemaObject = {
  type: "object",
  additionalProperties: false,
  description:
    "A JSON Schema of the answer: type, properties, required, additionalProperties, items, enum, const and bounds (no pattern, format or $ref).",
  properties: {
    type: {
      anyOf: [
        { enum: JSON_TYPES },
        { type: "array", items: { enum: JSON_TYPES }, minItems: 1, uniqueItems: true },
      ],
    },
    title: { type: "string" },
    description: { type: "string" },
    properties: {
      type: "object",
      maxProperties: 100,
      additionalProperties: { $ref: "#/$defs/answer_schema" },
    },
    required: { type: "array", items: { type: "string" }, maxItems: 100, uniqueItems: true },
    additionalProperties: { anyOf: [{ type: "boolean" }, { $ref: "#/$defs/answer_schema" }] },
    items: { $ref: "#/$defs/answer_schema" },
    enum: { type: "array", minItems: 1, maxItems: 100 },
    const: {},
    minLength: count,
    maxLength: count,
    minItems: count,
    maxItems: count,
    minProperties: count,
    maxProperties: count,
    minimum: bound,
    maximum: bound,
    exclusiveMinimum: bound,
    exclusiveMaximum: bound,
    multipleOf: { type: "number", exclusiveMinimum: 0 },
  },
};

/** One way an answer fails its schema: where in the answer, and what is wrong. */
export interface AnswerIssue {
  path: PathSegment[];
  message: string;
  /** The answer lacks a property its schema requires (`path` names it). */
  missing?: true;
}

// Lenient about keywords without their type (`minLength` with no `type: string`), as JSON Schema
// is; the schemas were checked against answerSchemaDefinition at import.
// `multipleOfPrecision`: 0.07 is a multiple of 0.01, which floating point alone does not say.
const ajv = new Ajv2020({ strict: false, allErrors: true, multipleOfPrecision: 9 });
const compiled = new Map<string, ValidateFunction>();
// Validators of the schemas seen last: a server answers many runs of few skills.
const KEPT_VALIDATORS = 100;

/**
 * Why an answer schema that has the right keywords still cannot be used (too deep, too large, or
 * refused by the validator, e.g. `minimum` given as text inside `properties`); null when usable.
 */
export function answerSchemaProblem(schema: unknown): string | null {
  const bytes = Buffer.byteLength(JSON.stringify(schema) ?? "");
  if (bytes > MAX_ANSWER_SCHEMA_BYTES) {
    return `the answer schema is ${bytes} bytes as JSON; at most ${MAX_ANSWER_SCHEMA_BYTES} are allowed`;
  }
  if (nestsDeeper(schema, MAX_ANSWER_SCHEMA_DEPTH)) {
    return `the answer schema nests deeper than ${MAX_ANSWER_SCHEMA_DEPTH} levels`;
  }
  try {
    validatorOf(schema as SchemaObject);
  } catch (error) {
    return `not a usable JSON Schema: ${(error as Error).message}`;
  }
  return null;
}

/** Checks an answer against an ask's schema; an empty list means it fits. */
export function checkAnswer(schema: SchemaObject, answer: unknown): AnswerIssue[] {
  const validate = validatorOf(schema);
  if (validate(answer)) return [];
  return (validate.errors ?? []).map(issueOf);
}

function validatorOf(schema: SchemaObject): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    if (compiled.size >= KEPT_VALIDATORS) {
      const oldest = compiled.keys().next().value;
      if (oldest !== undefined) compiled.delete(oldest);
    }
    compiled.set(key, validate);
  }
  return validate;
}

function issueOf(error: ErrorObject): AnswerIssue {
  const path: PathSegment[] = error.instancePath
    .split("/")
    .slice(1)
    .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
  if (error.keyword === "required") {
    path.push(String(error.params.missingProperty));
    return { path, message: "is required", missing: true };
  }
  if (error.keyword === "additionalProperties") {
    path.push(String(error.params.additionalProperty));
    return { path, message: "unexpected property" };
  }
  if (error.keyword === "enum") {
    const allowed = (error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v));
    return { path, message: `must be one of ${allowed.join(", ")}` };
  }
  return { path, message: error.message ?? "is not valid" };
}

/**
 * Whether the value nests more than `levels` schemas deep; it looks no deeper than that, so a
 * hostile nesting costs no more than an allowed one.
 */
function nestsDeeper(schema: unknown, levels: number): boolean {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return false;
  if (levels === 0) return true;
  const record = schema as Record<string, unknown>;
  const inner: unknown[] = [record.items, record.additionalProperties];
  if (typeof record.properties === "object" && record.properties !== null) {
    inner.push(...Object.values(record.properties));
  }
  return inner.some((part) => nestsDeeper(part, levels - 1));
}
