import { isRecord } from "../definition/describe.js";
import { compileExpression } from "./compile.js";

/**
 * A path read from the root of what an expression sees (`inputs.username`, `steps.page.file`,
 * or a mistyped `input.x`), found in the expression as written.
 */
export interface RootReference {
  /** The path's first name: `inputs`, `vars`, `steps`, … or a name that is none of them. */
  root: string;
  /** Where `root` starts in the expression. */
  rootStart: number;
  /** The name right after it (`username` in `inputs.username`), when one follows. */
  key?: { name: string; start: number };
}

/** A node of JSONata's syntax tree, read loosely: its typings leave out several fields. */
type Node = Record<string, unknown> & { type: string };

/**
 * Every path an expression reads from its root context, in the order they appear.
 *
 * JSONata evaluates a name against a context: at the top of an expression that is the root
 * (`inputs`, `data`, `vars`, `steps`, `secrets`, `run`), but inside a predicate, a group-by, a
 * sort, a transform or any step of a path after the first it is the item at hand
 * (`vars.rows[amount > 100]`, `vars.rows.(amount)`), and names there are relative and not
 * reported. `$$` is always the root and `$` is the root where the context is, so `$$.inputs.x`
 * and `$.inputs.x` count. A lambda's body keeps the context it was written in, as JSONata
 * evaluates it. Variables (`$x`, function parameters) are never names. An expression that does
 * not parse has none (its syntax is reported on its own).
 */
export function rootReferences(expression: string): RootReference[] {
  let tree: unknown;
  try {
    tree = compileExpression(expression).ast();
  } catch {
    return [];
  }
  const found: RootReference[] = [];
  visit(tree, true, { expression, found });
  // `a ?: b` and `a ?? b` hold `a` twice (condition and result): one reference per place.
  const byPlace = new Map(found.map((reference) => [reference.rootStart, reference]));
  return [...byPlace.values()].sort((a, b) => a.rootStart - b.rootStart);
}

interface Walk {
  expression: string;
  found: RootReference[];
}

function visit(value: unknown, atRoot: boolean, walk: Walk): void {
  if (Array.isArray(value)) {
    for (const item of value) visit(item, atRoot, walk);
    return;
  }
  if (!isNode(value)) return;
  switch (value.type) {
    case "path":
      visitPath(value, atRoot, walk);
      break;
    case "binary":
    case "apply":
      visit(value.lhs, atRoot, walk);
      visit(value.rhs, atRoot, walk);
      break;
    case "bind":
      visit(value.rhs, atRoot, walk);
      break;
    case "unary":
      // `-x`, an array constructor `[a, b]`, or an object constructor `{k: v}` (pairs in lhs).
      visit(value.expression, atRoot, walk);
      visit(value.expressions, atRoot, walk);
      visit(value.lhs, atRoot, walk);
      break;
    case "function":
    case "partial":
      visit(value.procedure, atRoot, walk);
      visit(value.arguments, atRoot, walk);
      break;
    case "lambda":
      visit(value.body, atRoot, walk);
      break;
    case "condition":
      visit(value.condition, atRoot, walk);
      visit(value.then, atRoot, walk);
      visit(value.else, atRoot, walk);
      break;
    case "block":
      visit(value.expressions, atRoot, walk);
      break;
    case "transform":
      // `| pattern | update, delete |` is a function applied to whatever it is given.
      visit([value.pattern, value.update, value.delete], false, walk);
      break;
    case "sort":
      for (const term of asList(value.terms))
        visit(isRecord(term) ? term.expression : undefined, false, walk);
      break;
    case "filter":
      visit(value.expr, false, walk);
      break;
    case "name":
    case "variable":
    case "string":
    case "number":
    case "value":
    case "regex":
    case "wildcard":
    case "descendant":
    case "parent":
    case "operator":
    case "index":
      break;
    default:
      // A kind of node this walk does not know: only `$$` paths inside it can be told apart.
      for (const child of Object.values(value)) visit(child, false, walk);
  }
  // Predicates, stages and group-by are evaluated against each item of the node's result.
  visit(value.predicate, false, walk);
  visit(value.stages, false, walk);
  if (isRecord(value.group)) visit(value.group.lhs, false, walk);
}

/**
 * A path's first step is evaluated in the path's context; every later step against the items the
 * step before gave, except after `$$` (the root) or `$` where that is the root.
 */
function visitPath(path: Node, atRoot: boolean, walk: Walk): void {
  const steps = asList(path.steps).filter(isNode);
  let stepAtRoot = atRoot;
  steps.forEach((step, index) => {
    if (step.type === "name" && stepAtRoot) {
      const next = steps[index + 1];
      const reference: RootReference = {
        root: String(step.value),
        rootStart: nameStart(step, walk.expression),
      };
      if (next?.type === "name") {
        reference.key = { name: String(next.value), start: nameStart(next, walk.expression) };
      }
      walk.found.push(reference);
    }
    visit(step, stepAtRoot, walk);
    stepAtRoot =
      step.type === "variable" && (step.value === "$" || (step.value === "" && stepAtRoot));
  });
}

/** JSONata gives where a token ends; a name may be written in backquotes (`` `user name` ``). */
function nameStart(node: Node, expression: string): number {
  const end = typeof node.position === "number" ? node.position : 0;
  const quoted = expression[end - 1] === "`" ? 2 : 0;
  return Math.max(0, end - String(node.value).length - quoted);
}

function isNode(value: unknown): value is Node {
  return isRecord(value) && typeof value.type === "string";
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
