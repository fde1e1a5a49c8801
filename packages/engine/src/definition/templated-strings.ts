import { conditionExpression } from "../expressions/evaluate.js";
import { ExpressionError } from "../expressions/expression-error.js";
import {
  hasTemplate,
  parseTemplate,
  type TemplateExpression,
  type TemplatePart,
} from "../expressions/template.js";
import { isStepKind, stepKindDefinition } from "../steps/registry.js";
import { isRecord } from "./describe.js";
import type { PathSegment } from "./problem.js";

/** A string of a definition that is resolved as a template, or read as a condition. */
export interface TemplatedString {
  text: string;
  path: PathSegment[];
  /**
   * `template` for a value resolved as a template (`"Hi {{ inputs.name }}"`); `if` and `until`
   * for conditions, written bare (`vars.n > 1`) or as one `{{ }}`.
   */
  role: "template" | "if" | "until";
}

/**
 * The strings of one step that the engine resolves: every string of its action, its `if`, and
 * a loop's `until`. A block's own steps are left out: each is a step of its own.
 */
export function stepStrings(step: Record<string, unknown>, path: PathSegment[]): TemplatedString[] {
  const found: TemplatedString[] = [];
  for (const kind of Object.keys(step).filter(isStepKind)) {
    const action = step[kind];
    const blocks = stepKindDefinition(kind).blocks ?? [];
    if (isRecord(action) && blocks.length > 0) {
      for (const [key, value] of Object.entries(action)) {
        if (blocks.includes(key)) continue;
        if (key === "until" && typeof value === "string") {
          found.push({ text: value, path: [...path, kind, key], role: "until" });
        } else {
          collect(value, [...path, kind, key], found);
        }
      }
    } else {
      collect(action, [...path, kind], found);
    }
  }
  if (typeof step.if === "string") found.push({ text: step.if, path: [...path, "if"], role: "if" });
  return found;
}

/** Every string inside a value (the skill's `output` map), each resolved as a template. */
export function stringsIn(value: unknown, path: PathSegment[]): TemplatedString[] {
  const found: TemplatedString[] = [];
  collect(value, path, found);
  return found;
}

/** The expressions of a string; none when it cannot be parsed (reported on its own). */
export function expressionsOf({ text, role }: TemplatedString): TemplateExpression[] {
  try {
    if (role !== "template") return [conditionExpression(text)];
    if (!hasTemplate(text)) return [];
    return parseTemplate(text).filter(
      (part: TemplatePart): part is TemplateExpression => "expression" in part,
    );
  } catch (error) {
    if (error instanceof ExpressionError) return [];
    throw error;
  }
}

function collect(value: unknown, path: PathSegment[], found: TemplatedString[]) {
  if (typeof value === "string") {
    found.push({ text: value, path, role: "template" });
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => {
      collect(item, [...path, index], found);
    });
  } else if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) collect(item, [...path, key], found);
  }
}
