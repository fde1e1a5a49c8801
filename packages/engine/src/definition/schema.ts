import type { SchemaObject } from "ajv/dist/2020.js";
import { STEP_KIND_DEFINITIONS, STEP_KINDS } from "../steps/registry.js";
import { MAX_ACCEPTED_TYPES, MEDIA_RANGE_PATTERN } from "./accepted-types.js";
import { answerSchemaDefinition } from "./answer-schema.js";
import { MAX_CONCURRENCY } from "./concurrency.js";
import { DURATION_PATTERN } from "./duration.js";
import { IDENTIFIER_PATTERN, SKILL_ID_PATTERN } from "./patterns.js";
import { PROFILE_SAVE_CHOICES } from "./profile.js";
import { dialogChoice, ref, text } from "./schema-parts.js";
import type { DataType } from "./types.js";

export { IDENTIFIER_PATTERN, SKILL_ID_PATTERN };

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

const stepOptionProperties: Record<string, SchemaObject> = {
  id: ref("identifier"),
  if: { ...text, description: "An expression; the step is skipped when it is false." },
  timeout: ref("duration"),
  retry: {
    type: "object",
    required: ["attempts"],
    properties: {
      attempts: {
        type: "integer",
        minimum: 1,
        maximum: 10,
        description: "How many tries in all, the first included.",
      },
      backoff: ref("duration"),
    },
    additionalProperties: false,
  },
  optional: {
    type: "boolean",
    default: false,
    description: "A failure is logged and the run goes on; the step's result is { error }.",
  },
  on_dialog: {
    ...dialogChoice,
    description:
      "What is answered to a dialog that opens while the step runs (the steps inside a block included); the skill's on_dialog when absent.",
  },
};

const stepDefs = Object.fromEntries(
  STEP_KINDS.flatMap((kind) => [
    [`action_${kind}`, STEP_KIND_DEFINITIONS[kind].schema],
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
    on_dialog: {
      ...dialogChoice,
      description:
        "What is answered to a dialog (alert, confirm, prompt, beforeunload) that opens while no step says otherwise: accept (the default) or dismiss.",
    },
    output: {
      type: "object",
      description: "When present, the run's data at the end is exactly this map.",
    },
    on_worker_loss: {
      enum: ["resume", "reset", "restart"],
      description:
        "What becomes of a run whose worker is lost: resume (the default) goes on from its last checkpoint, unless the worker was lost inside a step with effects (a browser step, an http other than GET or HEAD), which ends it in reset; reset ends it once a step with effects began; restart runs it again from the start.",
    },
    on_resume: {
      type: "array",
      minItems: 1,
      items: ref("step"),
      description:
        "Steps run first whenever the run goes on from a checkpoint (a resume after a lost worker, a parked run woken, a rerun), e.g. a goto or a call of the login skill.",
    },
    concurrency: {
      type: "integer",
      minimum: 1,
      maximum: MAX_CONCURRENCY,
      description:
        "How many runs of the skill one owner may have executing at once; with concurrency_key, how many of one key.",
    },
    concurrency_key: {
      type: "string",
      minLength: 1,
      description:
        'A template of the inputs, e.g. "{{ inputs.site }}": runs whose keys are equal share the concurrency limit. Needs concurrency.',
    },
    profile: {
      type: "object",
      required: ["name"],
      properties: {
        name: {
          type: "string",
          minLength: 1,
          description:
            'The browser profile (a saved login: cookies and localStorage) the run\'s browser starts with, e.g. "acme-{{ inputs.user }}": letters, digits and . _ @ + -, templates reading inputs only.',
        },
        save: {
          enum: [...PROFILE_SAVE_CHOICES],
          default: "never",
          description:
            "When the browser's state is written back to the profile as a new version: never (the default), on_success (the run finished) or always (finished, failed or timed out).",
        },
      },
      additionalProperties: false,
    },
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
        secret: {
          type: "boolean",
          default: false,
          description:
            "Kept encrypted, shown as *** and masked in what the run reports; a string without a default.",
        },
        accept: {
          type: "array",
          minItems: 1,
          maxItems: MAX_ACCEPTED_TYPES,
          uniqueItems: true,
          items: { type: "string", maxLength: 127, pattern: MEDIA_RANGE_PATTERN.source },
          description:
            "For a file input: the media types it takes (text/csv, image/*); a file of another type fails the run at its start.",
        },
      },
      additionalProperties: false,
    },
    answer_schema: answerSchemaDefinition,
    step_options: {
      type: "object",
      properties: stepOptionProperties,
      description: "The keys a step may carry beside its one action key.",
    },
    step: {
      oneOf: STEP_KINDS.map((kind) => ref(`step_${kind}`)),
      description:
        "A map with exactly one action key plus optional id, if, timeout, retry, optional and on_dialog.",
    },
    ...stepDefs,
  },
};
