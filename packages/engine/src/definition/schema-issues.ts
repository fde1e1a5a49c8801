import type { ErrorObject } from "ajv/dist/2020.js";
import { describeTypes, describeValue, isRecord, quote } from "./describe.js";
import { DURATION_PATTERN, notADurationMessage } from "./duration.js";
import { IDENTIFIER_PATTERN, SKILL_ID_PATTERN, TAB_CHOICE_PATTERN } from "./patterns.js";
import type { DefinitionProblem, PathSegment } from "./problem.js";

/** Turns ajv's errors (collected with `verbose: true`) into problems with human messages. */
export function schemaProblems(
  errors: readonly ErrorObject[],
  prefix: readonly PathSegment[] = [],
): DefinitionProblem[] {
  return (
    errors
      // An `anyOf`'s branches each fail on their own; the anyOf's one error says it all.
      .filter((error) => !error.schemaPath.includes("/anyOf/"))
      .map((error) => schemaProblem(error, [...prefix, ...pointerSegments(error)]))
  );
}

/** `/steps/0/http` → `["steps", "0", "http"]` (JSON pointer, unescaped). */
export function pointerSegments(error: ErrorObject): string[] {
  if (error.instancePath === "") return [];
  return error.instancePath
    .slice(1)
    .split("/")
    .map((segment) => segment.replaceAll("~1", "/").replaceAll("~0", "~"));
}

function schemaProblem(error: ErrorObject, path: PathSegment[]): DefinitionProblem {
  const params: Record<string, unknown> = error.params;
  const parent: Record<string, unknown> = error.parentSchema ?? {};
  const atValue = (message: string): DefinitionProblem => ({ path, at: "value", message });
  switch (error.keyword) {
    case "required":
      return atValue(requiredMessage(String(params.missingProperty), parent));
    case "additionalProperties": {
      const key = String(params.additionalProperty);
      const allowed = isRecord(parent.properties) ? Object.keys(parent.properties) : [];
      return {
        path: [...path, key],
        at: "key",
        message: `unknown key "${key}" (allowed: ${allowed.join(", ")})`,
      };
    }
    case "type":
      return atValue(typeMessage(String(params.type).split(","), parent, error.data));
    case "enum":
      return atValue(
        `${describeValue(error.data)} is not one of: ${(params.allowedValues as unknown[]).join(", ")}`,
      );
    case "pattern":
      return atValue(patternMessage(String(params.pattern), String(error.data)));
    case "minLength":
    case "minItems":
    case "minProperties":
      return atValue("must not be empty");
    case "minimum":
      return atValue(`must be at least ${String(params.limit)}, got ${describeValue(error.data)}`);
    case "maximum":
      return atValue(`must be at most ${String(params.limit)}, got ${describeValue(error.data)}`);
    case "not": {
      // Our only `not` is `{ required: [a, b] }`: keys that exclude each other.
      const keys = isRecord(error.schema) ? (error.schema.required as string[]) : [];
      const last = keys.at(-1);
      return {
        path: last === undefined ? path : [...path, last],
        at: "key",
        message: `${keys.map((key) => `"${key}"`).join(" and ")} cannot be used together`,
      };
    }
    case "anyOf": {
      // Our only `anyOf`s are `[{ required: [a] }, { required: [b] }]`: one of several keys.
      const branches = Array.isArray(error.schema) ? (error.schema as unknown[]) : [];
      const keys = branches.flatMap((branch) =>
        isRecord(branch) && Array.isArray(branch.required) ? (branch.required as string[]) : [],
      );
      if (keys.length > 0) return atValue(`needs ${keys.map((key) => `"${key}"`).join(" or ")}`);
      // Otherwise the alternatives are forms of the value (an answer schema's `type`).
      const forms = branches.flatMap(describeForm);
      return atValue(`expected ${forms.join(" or ")}, got ${describeValue(error.data)}`);
    }
    case "dependentRequired": {
      const key = String(params.property);
      return {
        path: [...path, key],
        at: "key",
        message: `"${key}" goes with "${String(params.missingProperty)}", which is missing`,
      };
    }
    default:
      return atValue(error.message ?? `fails the "${error.keyword}" rule`);
  }
}

/** Says what the missing key is for, from its description, when the schema gives one. */
function requiredMessage(key: string, parent: Record<string, unknown>): string {
  const property = isRecord(parent.properties) ? parent.properties[key] : undefined;
  const description = isRecord(property) ? property.description : undefined;
  if (typeof description !== "string") return `missing required key "${key}"`;
  const said = description.replace(/\.$/, "");
  return `missing required key "${key}" (${said.charAt(0).toLowerCase()}${said.slice(1)})`;
}

function typeMessage(types: string[], parent: Record<string, unknown>, data: unknown): string {
  const expected =
    parent.pattern === DURATION_PATTERN.source
      ? "a duration such as 500ms, 2s or 2m"
      : describeTypes(types);
  return `expected ${expected}, got ${describeValue(data)}`;
}

function patternMessage(pattern: string, text: string): string {
  if (pattern === DURATION_PATTERN.source) return notADurationMessage(text);
  if (pattern === IDENTIFIER_PATTERN.source) {
    return `${quote(text)} is not a valid name (use 1 to 128 letters, digits and _, not starting with a digit)`;
  }
  if (pattern === SKILL_ID_PATTERN.source) {
    return `${quote(text)} is not a valid skill id (use 1 to 128 letters, digits, _, . or -)`;
  }
  if (pattern === TAB_CHOICE_PATTERN.source) {
    return `${quote(text)} is not a tab (write last, an index from 0, or one {{ }} expression)`;
  }
  return `${quote(text)} does not match ${pattern}`;
}

/** How an alternative of an `anyOf` of forms reads: `one of: a, b`, `a list of those`, `a map`. */
function describeForm(branch: unknown): string[] {
  if (!isRecord(branch)) return [];
  if (Array.isArray(branch.enum)) return [`one of ${branch.enum.map(String).join(", ")}`];
  if (branch.type === "array") return ["a list of those"];
  if (typeof branch.type === "string") return [`a ${branch.type}`];
  if (typeof branch.$ref === "string") return ["a JSON Schema (a map)"];
  return [];
}
