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

/** What happens to a dialog (alert, confirm, prompt, beforeunload): accepted unless dismissed. */
export const dialogChoice: SchemaObject = {
  enum: ["accept", "dismiss"],
  description:
    "What is answered to a dialog (alert, confirm, prompt, beforeunload) that opens: accept (OK, a prompt's default text) or dismiss (Cancel).",
};

/** The iframe an element step acts inside, by a CSS selector of the `<iframe>` element. */
export const frame: SchemaObject = {
  type: "string",
  minLength: 1,
  description: "A CSS selector of the iframe the step acts inside; the page itself when absent.",
};

export const fieldValue: SchemaObject = {
  type: ["string", "number", "boolean"],
  description: "Text to enter; numbers and booleans are entered as their text.",
};

/** `{ selector, frame? }`: an element to act on (hover, check, uncheck). */
export const elementTarget: SchemaObject = {
  type: "object",
  required: ["selector"],
  properties: { selector, frame },
  additionalProperties: false,
};

/** `{ selector, value }`: an element and the value to put into it (fill, select). */
export const selectorAndValue: SchemaObject = {
  type: "object",
  required: ["selector", "value"],
  properties: { selector, value: fieldValue, frame },
  additionalProperties: false,
};

/** Where `save_as` puts a result: `name` (the run's data) or `vars.name` (a scratch variable). */
export const saveTarget: SchemaObject = {
  type: "string",
  pattern: "^(vars\\.)?[A-Za-z_][A-Za-z0-9_]*$",
  description: "`name` saves into the run's data, `vars.name` into a scratch variable.",
};

/** A block's steps: any step, blocks included (`#/$defs/step`). */
export const stepList: SchemaObject = {
  type: "array",
  minItems: 1,
  items: ref("step"),
  description: "The steps of the block, run in order; any step, blocks included.",
};
