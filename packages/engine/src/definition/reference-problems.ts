import { functionMeant } from "../expressions/function-names.js";
import { type RootReference, rootReferences } from "../expressions/references.js";
import { DEFAULT_ITEM_NAME } from "../steps/for-each.js";
import { isStepKind } from "../steps/registry.js";
import { isRecord } from "./describe.js";
import { nearestName } from "./nearest-name.js";
import { type DefinitionProblem, formatPath } from "./problem.js";
import {
  expressionsOf,
  stepStrings,
  stringsIn,
  type TemplatedString,
} from "./templated-strings.js";
import { type FoundStep, walkSteps } from "./walk-steps.js";

/** What an expression may read at its root; `data`, `secrets` and `run` are left to the run. */
const ROOT_NAMES = ["inputs", "data", "vars", "steps", "secrets", "run"] as const;

/** What the skill declares and writes, which its expressions are checked against. */
interface Known {
  /** The inputs' json_keys; undefined when `inputs` is malformed (reported by the schema). */
  inputs: string[] | undefined;
  /** Each step id, with the step that first has it (a duplicate is reported on its own). */
  steps: Map<string, FoundStep & { order: number }>;
  /** Every variable something writes: `let`, `save_as: vars.x`, a `for_each`'s item and index. */
  vars: Set<string>;
}

/** The step an expression belongs to, with its place in document order; none for `output`. */
type Reader = (FoundStep & { order: number; role: TemplatedString["role"] }) | undefined;

/**
 * Checks every reference the skill's expressions make from their root: an `inputs.x` no input
 * declares, a `steps.y` no step has (or that is not run before the step reading it), a `vars.z`
 * nothing writes, and any root name other than inputs, data, vars, steps, secrets and run.
 * `data`, `run` and `secrets` are checked at run time. Each problem points at the name inside
 * its string, and says what was probably meant.
 */
export function referenceProblems(definition: Record<string, unknown>): DefinitionProblem[] {
  const found = walkSteps(definition).map((step, order) => ({ ...step, order }));
  const known: Known = {
    inputs: declaredInputs(definition.inputs),
    steps: new Map(),
    vars: writtenVars(found),
  };
  for (const step of found) {
    const id = step.step.id;
    if (typeof id === "string" && !known.steps.has(id)) known.steps.set(id, step);
  }
  const problems: DefinitionProblem[] = [];
  for (const step of found) {
    for (const string of stepStrings(step.step, step.path)) {
      problems.push(...stringProblems(string, { ...step, role: string.role }, known));
    }
  }
  if (isRecord(definition.output)) {
    for (const string of stringsIn(definition.output, ["output"])) {
      problems.push(...stringProblems(string, undefined, known));
    }
  }
  return problems;
}

function declaredInputs(inputs: unknown): string[] | undefined {
  if (inputs === undefined) return [];
  if (!Array.isArray(inputs)) return undefined;
  return inputs.flatMap((input) =>
    isRecord(input) && typeof input.json_key === "string" ? [input.json_key] : [],
  );
}

function writtenVars(found: readonly FoundStep[]): Set<string> {
  const vars = new Set<string>();
  for (const { step } of found) {
    for (const kind of Object.keys(step).filter(isStepKind)) {
      const action = step[kind];
      if (!isRecord(action)) continue;
      if (kind === "let") for (const name of Object.keys(action)) vars.add(name);
      if (kind === "for_each") {
        const name = typeof action.as === "string" ? action.as : DEFAULT_ITEM_NAME;
        vars.add(name).add(`${name}_index`);
      }
      const target = action.save_as;
      if (typeof target === "string" && target.startsWith("vars.")) {
        vars.add(target.slice("vars.".length));
      }
    }
  }
  return vars;
}

function stringProblems(string: TemplatedString, reader: Reader, known: Known) {
  const problems: DefinitionProblem[] = [];
  for (const { expression, start } of expressionsOf(string)) {
    for (const reference of rootReferences(expression)) {
      // `not(x)`: a function without its `$`, which the expression check reports as such.
      if (calledAsFunction(expression, reference)) continue;
      const found = referenceProblem(reference, reader, known);
      if (found === undefined) continue;
      problems.push({
        path: string.path,
        at: "value",
        message: found.message,
        index: start + found.start,
      });
    }
  }
  return problems;
}

/** Whether the reference is a bare name called as a function that exists, or one near it. */
function calledAsFunction(expression: string, reference: RootReference): boolean {
  if (reference.key !== undefined || (ROOT_NAMES as readonly string[]).includes(reference.root)) {
    return false;
  }
  const after = expression.slice(reference.rootStart + reference.root.length).trimStart();
  return after.startsWith("(") && functionMeant(reference.root) !== undefined;
}

/** What is wrong with one reference, and where in the expression: at its root or its key. */
function referenceProblem(
  reference: RootReference,
  reader: Reader,
  known: Known,
): { message: string; start: number } | undefined {
  const { root, key } = reference;
  if (!(ROOT_NAMES as readonly string[]).includes(root)) {
    return { message: unknownRootMessage(root, known), start: reference.rootStart };
  }
  if (key === undefined) return undefined;
  const message =
    root === "inputs"
      ? inputProblem(key.name, known.inputs)
      : root === "steps"
        ? stepProblem(key.name, reader, known.steps)
        : root === "vars"
          ? varProblem(key.name, known.vars)
          : undefined; // data, run and secrets hold what the run gives them
  return message === undefined ? undefined : { message, start: key.start };
}

function inputProblem(name: string, inputs: string[] | undefined): string | undefined {
  if (inputs === undefined || inputs.includes(name)) return undefined;
  const near = nearestName(name, inputs);
  if (near !== undefined) return `unknown input "${name}" (did you mean "${near}"?)`;
  if (inputs.length === 0) return `unknown input "${name}" (the skill declares no inputs)`;
  return `unknown input "${name}" (the skill's inputs: ${listed(inputs)})`;
}

function stepProblem(name: string, reader: Reader, steps: Known["steps"]): string | undefined {
  const target = steps.get(name);
  if (target === undefined) {
    const ids = [...steps.keys()];
    const near = nearestName(name, ids);
    if (near !== undefined) return `unknown step "${name}" (did you mean "${near}"?)`;
    if (ids.length === 0) return `unknown step "${name}" (no step has an id)`;
    return `unknown step "${name}" (step ids: ${listed(ids)})`;
  }
  // `output` is resolved after every step, so it may read any of them.
  if (reader === undefined) return undefined;
  const readerPath = formatPath(reader.path);
  const targetPath = formatPath(target.path);
  // A loop's `until` is checked after each round, when its own steps have run.
  const insideReader = target.blocks.some((block) => formatPath(block) === readerPath);
  if (reader.role === "until" && insideReader) return undefined;
  if (targetPath === readerPath) {
    return `step "${name}" is this step; a step cannot read its own result`;
  }
  if (reader.blocks.some((block) => formatPath(block) === targetPath)) {
    return `step "${name}" is a block around this step; its result is set only when the block ends`;
  }
  if (target.order > reader.order) {
    return `step "${name}" is defined later, at ${targetPath}; a step can only read steps before it`;
  }
  return undefined;
}

function varProblem(name: string, vars: Set<string>): string | undefined {
  if (vars.has(name)) return undefined;
  const near = nearestName(name, vars);
  const meant = near === undefined ? "" : ` (did you mean "${near}"?)`;
  return `variable "${name}" is never written${meant}; write it with let`;
}

/**
 * A name at the root that is none of what expressions read: mostly `input.x` for `inputs.x`,
 * or a bare input, variable or step id (`price` for `inputs.price`).
 */
function unknownRootMessage(name: string, known: Known): string {
  const meant =
    (known.inputs?.includes(name) ? `inputs.${name}` : undefined) ??
    (known.vars.has(name) ? `vars.${name}` : undefined) ??
    (known.steps.has(name) ? `steps.${name}` : undefined) ??
    nearestName(name, ROOT_NAMES);
  const hint = meant === undefined ? "" : `; did you mean "${meant}"?`;
  return `unknown name "${name}" at the start of an expression (expressions read inputs, data, vars, steps, secrets and run${hint})`;
}

const LISTED_AT_MOST = 10;

function listed(names: readonly string[]): string {
  const shown = names.slice(0, LISTED_AT_MOST).join(", ");
  return names.length > LISTED_AT_MOST ? `${shown}, …` : shown;
}
