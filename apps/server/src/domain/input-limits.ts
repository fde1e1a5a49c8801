import type { ValidationIssue } from "./errors.js";

/** How large and how deeply nested a run's inputs may be (INPUTS_MAX_BYTES, INPUTS_MAX_DEPTH). */
export interface InputLimits {
  maxBytes: number;
  maxDepth: number;
}

/**
 * The issue with inputs that are nested deeper than `maxDepth` arrays and objects (the inputs
 * object itself is level 1) or larger than `maxBytes` as JSON; null when they are within both.
 * Depth is measured without recursion, and before anything serializes the value, so no nesting
 * can exhaust the stack.
 */
export function inputLimitIssue(inputs: unknown, limits: InputLimits): ValidationIssue | null {
  const loc = ["body", "inputs"];
  if (depthExceeds(inputs, limits.maxDepth)) {
    return {
      loc,
      msg: `Value error, inputs must not be nested more than ${limits.maxDepth} levels deep`,
      type: "value_error",
    };
  }
  const bytes = Buffer.byteLength(JSON.stringify(inputs) ?? "");
  if (bytes > limits.maxBytes) {
    return {
      loc,
      msg: `Value error, inputs must not be larger than ${limits.maxBytes} bytes as JSON (got ${bytes})`,
      type: "value_error",
    };
  }
  return null;
}

/**
 * Whether `root` nests more than `maxDepth` arrays and objects deep (`root` itself is level 1),
 * walked without recursion.
 */
export function depthExceeds(root: unknown, maxDepth: number): boolean {
  const pending: [unknown, number][] = [[root, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, depth] = next;
    if (typeof value !== "object" || value === null) continue;
    if (depth > maxDepth) return true;
    for (const child of Object.values(value)) pending.push([child, depth + 1]);
  }
  return false;
}
