import type { SchemaObject } from "ajv/dist/2020.js";
import { DURATION_PATTERN } from "./duration.js";
import { STEP_KINDS } from "./step-kinds.js";
import type { DataType, StepKind } from "./types.js";

/** A skill id: 1 to 128 letters, digits, `_`, `.` or `-`. */
export const SKILL_ID_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

/** Names that expressions refer to (`inputs.url`, `data.price`): json_key, step id, save_as. */
export const IDENTIFIER_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const DATA_TYPES = [
  "string",
  "number",
  "boolean",
  "array",
  "object",
  "file",
  "tab",
] as const satisfies readonly DataType[];

export const SKILL_DEFINITION_SCHEMA_ID = "https://skillrun.dev/schemas/skill-definition.json";

const ref = (name: string): SchemaObject => ({ $ref: `#/$defs/${name}` });

const text: SchemaObject = { type: "string", minLength: 1 };
const selector: SchemaObject = { type: "string", minLength: 1, description: "A CSS selector." };
const fieldValue: SchemaObject = {
  type: ["string", "number", "boolean"],
  description: "Text to enter; numbers and booleans are entered as their text.",
};
const httpStatus: SchemaObject = { type: "integer", minimum: 100, maximum: 599 };

// Union shapes are written as `type: [a, b]` rather than `anyOf`: object keywords apply only to
// maps, so the schema stays exact while validation reports one clear error instead of one per branch.
const actionSchemas: Record<StepKind, SchemaObject> = {
  set: {
    type: "object",
    minProperties: 1,
    description: "Stores each value in the run's data under its key.",
  },
  log: {
    type: ["string", "object"],
    minLength: 1,
    required: ["message"],
    properties: { message: text, level: { enum: ["debug", "info", "warn", "error"] } },
    additionalProperties: false,
    description: "A message, or { message, level }; level defaults to info.",
  },
  wait: ref("duration"),
  http: {
    type: "object",
    required: ["url"],
    properties: {
      method: { enum: ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"], default: "GET" },
      url: text,
      headers: { type: "object", additionalProperties: { type: "string" } },
      json: { description: "Sent as a JSON body." },
      body: { type: "string", description: "Sent as a raw body." },
      expect_status: {
        type: ["integer", "array"],
        minimum: 100,
        maximum: 599,
        minItems: 1,
        items: httpStatus,
        description: "The accepted status code or codes; any 2xx when absent.",
      },
      save_as: ref("identifier"),
      timeout: ref("duration"),
    },
    additionalProperties: false,
    // `properties` restated so ajv's strict mode sees the required keys defined.
    not: { required: ["json", "body"], properties: { json: true, body: true } },
  },
  goto: {
    type: ["string", "object"],
    minLength: 1,
    required: ["url"],
    properties: { url: text },
    additionalProperties: false,
    description: "A URL, or { url }.",
  },
  click: {
    type: "object",
    required: ["selector"],
    properties: { selector },
    additionalProperties: false,
  },
  fill: {
    type: "object",
    required: ["selector", "value"],
    properties: { selector, value: fieldValue },
    additionalProperties: false,
  },
  press: {
    type: "object",
    required: ["key"],
    properties: {
      selector,
      key: { ...text, description: "A key name such as Enter, or a chord such as Control+A." },
    },
    additionalProperties: false,
    description: "Presses a key on the element, or on the page when no selector is given.",
  },
  select: {
    type: "object",
    required: ["selector", "value"],
    properties: { selector, value: fieldValue },
    additionalProperties: false,
  },
  wait_for: {
    type: "object",
    required: ["selector"],
    properties: {
      selector,
      state: { enum: ["visible", "hidden", "attached", "detached"], default: "visible" },
    },
    additionalProperties: false,
  },
  extract: {
    type: "object",
    required: ["selector", "save_as"],
    properties: {
      selector,
      save_as: ref("identifier"),
      attribute: { ...text, description: "Reads this attribute instead of the text." },
      all: { type: "boolean", default: false, description: "Saves a list, one per match." },
    },
    additionalProperties: false,
  },
  screenshot: {
    type: ["object", "null"],
    properties: { save_as: ref("identifier"), full_page: { type: "boolean", default: false } },
    additionalProperties: false,
  },
  assert_text: {
    type: "object",
    required: ["selector", "text"],
    properties: { selector, text: { type: "string", description: "Must occur in the text." } },
    additionalProperties: false,
  },
};

const stepOptionProperties: Record<string, SchemaObject> = {
  id: ref("identifier"),
  if: { ...text, description: "An expression; the step is skipped when it is false." },
  timeout: ref("duration"),
  retry: {
    type: "object",
    required: ["attempts"],
    properties: {
      attempts: { type: "integer", minimum: 1, maximum: 10, description: "First try included." },
      backoff: ref("duration"),
    },
    additionalProperties: false,
  },
};

const stepDefs = Object.fromEntries(
  STEP_KINDS.flatMap((kind) => [
    [`action_${kind}`, actionSchemas[kind]],
    [
      `step_${kind}`,
      {
        type: "object",
        required: [kind],
        properties: { ...stepOptionProperties, [kind]: ref(`action_${kind}`) },
        additionalProperties: false,
      },
    ],
  ]),
);

/** The skill definition format as a JSON Schema (draft 2020-12). */
export const skillDefinitionSchema: SchemaObject = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: SKILL_DEFINITION_SCHEMA_ID,
  title: "Skillrun skill definition",
  type: "object",
  required: ["id", "name", "steps"],
  properties: {
    id: { type: "string", pattern: SKILL_ID_PATTERN.source },
    name: text,
    description: { type: "string" },
    inputs: { type: "array", items: ref("input"), default: [] },
    timeout: { ...ref("duration"), description: "The run's time limit; 10m when absent." },
    steps: { type: "array", minItems: 1, items: ref("step") },
  },
  additionalProperties: false,
  $defs: {
    identifier: { type: "string", pattern: IDENTIFIER_PATTERN.source },
    duration: {
      type: "string",
      pattern: DURATION_PATTERN.source,
      description: "A number and a unit (ms, s, m or h), e.g. 500ms, 2s, 1.5m.",
    },
    input: {
      type: "object",
      required: ["json_key", "data_type"],
      properties: {
        id: { ...text, description: "Defaults to input_<json_key>." },
        json_key: ref("identifier"),
        data_type: { enum: DATA_TYPES },
        description: { type: "string" },
        required: { type: "boolean", default: true },
        default: { description: "Must match data_type; file and tab take a string." },
      },
      additionalProperties: false,
    },
    step_options: {
      type: "object",
      properties: stepOptionProperties,
      description: "The keys a step may carry beside its one action key.",
    },
    step: {
      oneOf: STEP_KINDS.map((kind) => ref(`step_${kind}`)),
      description: "A map with exactly one action key plus optional id, if, timeout and retry.",
    },
    ...stepDefs,
  },
};
