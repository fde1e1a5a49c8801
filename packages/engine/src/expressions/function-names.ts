import { nearestName } from "../definition/nearest-name.js";
import { compileExpression } from "./compile.js";

/**
 * Every function an expression can call by name: JSONata's own and the one Skillrun adds
 * (`$totp`, evaluate.ts). A fixed, short list, so that suggesting one costs little.
 */
export const FUNCTION_NAMES: readonly string[] = [
  ...["sum", "count", "max", "min", "average", "string", "substring", "substringBefore"],
  ...["substringAfter", "lowercase", "uppercase", "length", "trim", "pad", "match", "contains"],
  ...["replace", "split", "join", "formatNumber", "formatBase", "formatInteger", "parseInteger"],
  ...["number", "floor", "ceil", "round", "abs", "sqrt", "power", "random", "boolean", "not"],
  ...["map", "zip", "filter", "single", "reduce", "sift", "keys", "lookup", "append", "exists"],
  ...["spread", "merge", "reverse", "each", "error", "assert", "type", "sort", "shuffle"],
  ...["distinct", "base64encode", "base64decode", "encodeUrlComponent", "encodeUrl"],
  ...["decodeUrlComponent", "decodeUrl", "eval", "toMillis", "fromMillis", "now", "millis"],
  "totp",
];

const KNOWN = new Set(FUNCTION_NAMES);

/** A node of JSONata's syntax tree, read loosely: its typings leave out several fields. */
type Node = Record<string, unknown> & { type: string };

/**
 * Why an expression's calls cannot work, one message per call, or none: a call of a `$name` that
 * is neither a function nor a variable the expression binds (`$lenght(x)`), or of a bare name
 * that is a function's without its `$` (`not(x)`). JSONata parses both and fails only when it
 * evaluates them, mid-run; a known function near the name is suggested. An expression that
 * does not parse has none (its syntax is reported on its own).
 */
export function functionNameProblems(expression: string): string[] {
  let tree: unknown;
  try {
    tree = compileExpression(expression).ast();
  } catch {
    return [];
  }
  const bound = new Set<string>();
  const calls: Node[] = [];
  collect(tree, bound, calls);
  const problems: string[] = [];
  for (const call of calls) {
    const procedure = call.procedure as Node;
    if (procedure.type === "variable") {
      const name = String(procedure.value);
      // `$` and `$$` are the context and the root; calling them is JSONata's own business.
      if (name === "" || name === "$" || KNOWN.has(name) || bound.has(name)) continue;
      const near = nearestName(name, FUNCTION_NAMES);
      problems.push(
        `unknown function "$${name}"${near === undefined ? "" : `; did you mean "$${near}"?`}`,
      );
    } else if (procedure.type === "path") {
      const steps = procedure.steps as Node[] | undefined;
      const only = steps?.length === 1 ? steps[0] : undefined;
      if (only?.type !== "name") continue;
      const near = functionMeant(String(only.value));
      // Another bare name may be a function kept in the data; only a function's name is surely meant.
      if (near === undefined) continue;
      problems.push(`"${String(only.value)}" is not a function; did you mean "$${near}"?`);
    }
  }
  return problems;
}

/**
 * The function a bare name called as one (`not(x)`, `lenght(x)`) stands for: that function's
 * name without its `$`, or one near it; undefined when it is near none.
 */
export function functionMeant(name: string): string | undefined {
  return KNOWN.has(name) ? name : nearestName(name, FUNCTION_NAMES);
}

/** Walks every node: the variables bound (`$x := …`, lambda parameters) and every call. */
function collect(value: unknown, bound: Set<string>, calls: Node[]): void {
  if (Array.isArray(value)) {
    for (const item of value) collect(item, bound, calls);
    return;
  }
  if (typeof value !== "object" || value === null) return;
  const node = value as Node;
  if (node.type === "bind" && isNode(node.lhs) && node.lhs.type === "variable") {
    bound.add(String(node.lhs.value));
  }
  if (node.type === "lambda" && Array.isArray(node.arguments)) {
    for (const argument of node.arguments) {
      if (isNode(argument) && argument.type === "variable") bound.add(String(argument.value));
    }
  }
  if ((node.type === "function" || node.type === "partial") && isNode(node.procedure)) {
    calls.push(node);
  }
  for (const [key, child] of Object.entries(node)) {
    // `position`, `value` and the like are not nodes; anything that holds nodes is walked.
    if (key !== "type" && typeof child === "object") collect(child, bound, calls);
  }
}

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && typeof (value as Node).type === "string";
}
