import type { SchemaObject } from "ajv/dist/2020.js";

// Pieces the step kinds' action schemas are built from. `ref` names a `$defs` entry of the skill
// definition schema (schema.ts), which every action schema is embedded in.

/** A reference to `#/$defs/<name>` of the skill definition schema (`duration`, `identifier`). */
export const ref = (name: string): SchemaObject => ({ $ref: `#/$defs/${name}` });

export const text: SchemaObject = { type: "string", minLength: 1 };

export const selector: SchemaObject = {
  type: "string",
  minLength: 1,
  description: "A CSS selector.",
};

export const fieldValue: SchemaObject = {
  type: ["string", "number", "boolean"],
  description: "Text to enter; numbers and booleans are entered as their text.",
};

/** `{ selector, value }`: an element and the value to put into it (fill, select). */
export const selectorAndValue: SchemaObject = {
  type: "object",
  required: ["selector", "value"],
  properties: { selector, value: fieldValue },
  additionalProperties: false,
};
