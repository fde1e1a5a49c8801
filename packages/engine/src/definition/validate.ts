import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { isStepKind, STEP_KINDS, STEP_OPTION_KEYS, stepKindDefinition } from "../steps/registry.js";
import { acceptedTypeProblems } from "./accepted-types.js";
import { concurrencyKeyProblems } from "./concurrency.js";
import { describeTypes, describeValue, isRecord } from "./describe.js";
import { durationProblems } from "./duration-limits.js";
import { expressionProblems, templateProblemsIn } from "./expression-problems.js";
import { nearestName } from "./nearest-name.js";
import type { DefinitionProblem, PathSegment } from "./problem.js";
import { profileProblems } from "./profile.js";
import { referenceProblems } from "./reference-problems.js";
import { SKILL_DEFINITION_SCHEMA_ID, skillDefinitionSchema } from "./schema.js";
import { schemaProblems } from "./schema-issues.js";
import { secretInputProblems } from "./secret-inputs.js";
import type { DataType } from "./types.js";
import { innerStepLists, walkSteps } from "./walk-steps.js";

let ajv: Ajv2020 | undefined;

function validator(definition: string): ValidateFunction {
  ajv ??= new Ajv2020({
    strict: true,
    allowUnionTypes: true,
    allErrors: true,
    verbose: true,
  }).addSchema(skillDefinitionSchema);
  const validate = ajv.getSchema(`${SKILL_DEFINITION_SCHEMA_ID}${definition}`);
  if (validate === undefined) throw new Error(`no schema at ${definition}`);
  return validate;
}

/** The definition's lists of steps: its own, and those run first after a restore. */
const STEP_LISTS = ["steps", "on_resume"];

/** Checks a value read from YAML against the definition format; an empty list means valid. */
export function validateSkillDefinition(value: unknown): DefinitionProblem[] {
  if (!isRecord(value)) {
    const message = `expected a skill definition (a map with id, name and steps), got ${describeValue(value)}`;
    return [{ path: [], at: "value", message }];
  }
  const validate = validator("");
  validate(value);
  // Steps are checked one by one below, so an unknown kind gives one issue instead of
  // one per step kind the `oneOf` tried.
  const problems = schemaProblems(validate.errors ?? []).filter(
    (problem) => !(STEP_LISTS.includes(String(problem.path[0])) && problem.path.length > 1),
  );
  const { inputs, steps } = value;
  for (const list of STEP_LISTS) {
    const listed = value[list];
    if (!Array.isArray(listed)) continue;
    listed.forEach((step, index) => {
      problems.push(...stepProblems(step, [list, index]));
    });
  }
  if (Array.isArray(steps)) problems.push(...duplicateStepIds(value));
  if (isRecord(value.output)) problems.push(...templateProblemsIn(value.output, ["output"]));
  if (Array.isArray(inputs)) {
    problems.push(...duplicates(inputs, "inputs", "json_key", "input json_key"));
    problems.push(...inputIdProblems(inputs));
    problems.push(...defaultProblems(inputs));
    problems.push(...secretInputProblems(inputs));
    problems.push(...acceptedTypeProblems(inputs));
  }
  problems.push(...concurrencyKeyProblems(value));
  problems.push(...profileProblems(value));
  problems.push(...durationProblems(value));
  problems.push(...referenceProblems(value));
  return problems;
}

const KIND_LIST = STEP_KINDS.join(", ");
const OPTION_LIST = STEP_OPTION_KEYS.join(", ");

/** `; did you mean "click"?` when a known name is near `written`, else nothing. */
function didYouMean(written: string, candidates: readonly string[]): string {
  const near = nearestName(written, candidates);
  return near === undefined ? "" : `; did you mean "${near}"?`;
}

function stepProblems(step: unknown, path: PathSegment[]): DefinitionProblem[] {
  if (!isRecord(step)) {
    const message = `expected a step (a map with one action key such as log or http), got ${describeValue(step)}`;
    return [{ path, at: "value", message }];
  }
  const actionKeys = Object.keys(step).filter(
    (key) => !(STEP_OPTION_KEYS as readonly string[]).includes(key),
  );
  const kinds = actionKeys.filter(isStepKind);
  if (actionKeys.length === 0) {
    return [{ path, at: "value", message: `missing action key (expected one of: ${KIND_LIST})` }];
  }
  const problems: DefinitionProblem[] = [];
  for (const key of actionKeys) {
    if (isStepKind(key)) continue;
    // The candidates are the fixed lists of kinds and option keys: a suggestion costs little.
    const message =
      kinds.length === 0
        ? `unknown step kind "${key}"${didYouMean(key, STEP_KINDS)} (expected one of: ${KIND_LIST})`
        : `unknown key "${key}"${didYouMean(key, STEP_OPTION_KEYS)} (a step holds one action plus: ${OPTION_LIST})`;
    problems.push({ path: [...path, key], at: "key", message });
  }
  for (const extra of kinds.slice(1)) {
    const message = `more than one action in a step ("${kinds[0]}" and "${extra}"); give each its own step`;
    problems.push({ path: [...path, extra], at: "key", message });
  }
  const options = validator("#/$defs/step_options");
  if (!options(step)) problems.push(...schemaProblems(options.errors ?? [], path));
  const inner = innerStepLists(step, path);
  for (const kind of kinds) {
    const action = validator(`#/$defs/action_${kind}`);
    if (action(step[kind])) {
      for (const problem of stepKindDefinition(kind).problems?.(step[kind]) ?? []) {
        problems.push({
          path: [...path, kind, ...problem.path],
          at: "value",
          message: problem.message,
        });
      }
      continue;
    }
    // A block's own steps are checked one by one below, as the skill's steps are.
    const own = schemaProblems(action.errors ?? [], [...path, kind]).filter(
      (problem) => !inner.some((list) => isInside(problem.path, list.path)),
    );
    problems.push(...own);
  }
  problems.push(...expressionProblems(step, path));
  for (const list of inner) {
    list.steps.forEach((item, index) => {
      problems.push(...stepProblems(item, [...list.path, index]));
    });
  }
  return problems;
}

/** Whether `path` lies below an item of the list at `list` (not the list itself). */
function isInside(path: PathSegment[], list: PathSegment[]): boolean {
  return path.length > list.length + 1 && list.every((segment, i) => path[i] === segment);
}

/** Step ids name `steps.<id>`, which is one map for the whole skill: unique across blocks. */
function duplicateStepIds(definition: unknown): DefinitionProblem[] {
  const seen = new Set<string>();
  const problems: DefinitionProblem[] = [];
  for (const { step, path } of walkSteps(definition)) {
    const id = step.id;
    if (typeof id !== "string") continue;
    if (seen.has(id)) {
      problems.push({ path: [...path, "id"], at: "value", message: `duplicate step id "${id}"` });
    }
    seen.add(id);
  }
  return problems;
}

function stringAt(item: unknown, key: string): string | undefined {
  const value = isRecord(item) ? item[key] : undefined;
  return typeof value === "string" ? value : undefined;
}

/** Reports each repeat of a string `key` among the items, at the repeat. */
function duplicates(
  items: unknown[],
  listName: string,
  key: string,
  what: string,
): DefinitionProblem[] {
  const seen = new Set<string>();
  const problems: DefinitionProblem[] = [];
  items.forEach((item, index) => {
    const name = stringAt(item, key);
    if (name === undefined) return;
    if (seen.has(name)) {
      const message = `duplicate ${what} "${name}"`;
      problems.push({ path: [listName, index, key], at: "value", message });
    }
    seen.add(name);
  });
  return problems;
}

/**
 * Compares ids as normalised, so `id: input_url` clashes with an input whose json_key is url.
 * Two implied ids clash only when their json_keys do, which is reported already.
 */
function inputIdProblems(inputs: unknown[]): DefinitionProblem[] {
  const explicit = new Set<string>();
  const implied = new Set<string>();
  const problems: DefinitionProblem[] = [];
  inputs.forEach((input, index) => {
    const id = stringAt(input, "id");
    const key = stringAt(input, "json_key");
    if (id !== undefined) {
      if (explicit.has(id) || implied.has(id)) {
        const message = `duplicate input id "${id}"`;
        problems.push({ path: ["inputs", index, "id"], at: "value", message });
      }
      explicit.add(id);
    } else if (key !== undefined) {
      const impliedId = `input_${key}`;
      if (explicit.has(impliedId)) {
        const message = `duplicate input id "${impliedId}" (implied by json_key "${key}")`;
        problems.push({ path: ["inputs", index], at: "value", message });
      }
      implied.add(impliedId);
    }
  });
  return problems;
}

const DEFAULT_CHECKS: Record<DataType, [expected: string, (value: unknown) => boolean]> = {
  string: ["string", (value) => typeof value === "string"],
  number: ["number", (value) => typeof value === "number"],
  boolean: ["boolean", (value) => typeof value === "boolean"],
  array: ["array", Array.isArray],
  object: ["object", isRecord],
  // A file or tab is named by text (a path, an address), so its default is a string.
  file: ["string", (value) => typeof value === "string"],
  tab: ["string", (value) => typeof value === "string"],
};

function defaultProblems(inputs: unknown[]): DefinitionProblem[] {
  const problems: DefinitionProblem[] = [];
  inputs.forEach((input, index) => {
    if (!isRecord(input) || !("default" in input)) return;
    const dataType = input.data_type;
    // An unknown data_type is reported by the schema.
    if (typeof dataType !== "string" || !Object.hasOwn(DEFAULT_CHECKS, dataType)) return;
    const [expected, matches] = DEFAULT_CHECKS[dataType as DataType];
    if (matches(input.default)) return;
    const message = `default does not match data_type "${String(input.data_type)}": expected ${describeTypes([expected])}, got ${describeValue(input.default)}`;
    problems.push({ path: ["inputs", index, "default"], at: "value", message });
  });
  return problems;
}
