import {
  parseSkillSource,
  SkillDefinitionError,
  type SkillDefinitionIssue,
  type SkillSource,
} from "@skillrun/engine";
import type { ImportOutcome, SkillRepository } from "../db/repositories/skills.js";
import { RequestInvalid, type ValidationIssue } from "../domain/errors.js";
import { depthExceeds } from "../domain/input-limits.js";
import { isStorableText } from "../http/storable-text.js";
import { callProblems } from "./call-graph.js";
import { skillRecordOf } from "./import-skills.js";

// The name issues are placed in: the body, not a file.
const BODY = "body";

/**
 * How deep a definition sent as JSON may nest. Far beyond any real skill; it keeps a hostile body
 * from overflowing the stack when it is turned into text for the parser (YAML text is parsed
 * without that step, and the parser refuses its own overflow as a syntax error).
 */
const MAX_JSON_DEPTH = 200;

/**
 * A skill definition sent to the API, checked exactly as an import checks a file (format,
 * templates, references, and the skills its calls name among the owner's). The body is YAML text
 * or, as parsed JSON, an object: JSON is YAML, so both go through the one parser, which places
 * each problem at its line and column. Throws a RequestInvalid listing every problem.
 */
export async function checkedSkillBody(
  skills: SkillRepository,
  owner: string,
  body: unknown,
  idInAddress?: string,
  /** A JSON body's text as sent, so that positions are in it (else they are in a rendering). */
  sentText?: string,
): Promise<SkillSource> {
  if (body === undefined || body === null) {
    throw new RequestInvalid([{ loc: [BODY], msg: "Field required", type: "missing" }]);
  }
  if (typeof body !== "string" && depthExceeds(body, MAX_JSON_DEPTH)) {
    const msg = `Value error, the definition nests deeper than ${MAX_JSON_DEPTH} levels`;
    throw new RequestInvalid([{ loc: [BODY], msg, type: "value_error" }]);
  }
  // JSON is YAML: the text sent is parsed as it is, so each problem's place is in it.
  const text = typeof body === "string" ? body : (sentText ?? JSON.stringify(body, null, 2));
  let source: SkillSource;
  try {
    source = parseSkillSource(text, BODY);
  } catch (error) {
    if (error instanceof SkillDefinitionError) throw invalid(error.issues);
    throw error;
  }
  const { definition } = source;
  const issues: SkillDefinitionIssue[] = [];
  // Its text ends up in columns and step logs, which PostgreSQL refuses NUL characters in.
  const unstorable = unstorableTextAt(definition);
  if (unstorable !== undefined) {
    issues.push(
      source.issueAt(
        unstorable,
        "this text holds a character the database cannot store (NUL, or half of a surrogate pair)",
      ),
    );
  }
  if (idInAddress !== undefined && definition.id !== idInAddress) {
    issues.push(
      source.issueAt(
        ["id"],
        `the definition's id "${definition.id}" is not the id in the address, "${idInAddress}"`,
      ),
    );
  }
  const imported = { id: definition.id, definition, issueAt: source.issueAt };
  issues.push(...callProblems([imported], await skills.definitions(owner)));
  if (issues.length > 0) throw invalid(issues);
  return source;
}

/** Stores a checked definition as the owner's skill. */
export async function storeSkill(
  skills: SkillRepository,
  owner: string,
  source: SkillSource,
): Promise<ImportOutcome> {
  const [outcome] = await skills.importAll(owner, [skillRecordOf(source.definition)]);
  return outcome as ImportOutcome;
}

/** At most this many problems are listed: a hostile body could otherwise make a huge answer. */
const MAX_LISTED = 100;

/**
 * The definition's problems as a 422: `loc` is the path in the definition, `msg` places it; past
 * MAX_LISTED, one last entry says how many more there are.
 */
function invalid(issues: readonly SkillDefinitionIssue[]): RequestInvalid {
  const more = issues.length - MAX_LISTED;
  const listed = issues.slice(0, MAX_LISTED).map((issue): ValidationIssue => {
    const path = issue.path === "$" ? [] : issue.path.split("/").map(segmentOf);
    return {
      loc: [BODY, ...path],
      msg: `Value error, line ${issue.line}, column ${issue.column}: ${issue.message}`,
      type: "value_error",
    };
  });
  if (more > 0) {
    const msg = `Value error, and ${more} more problems; fix these first`;
    listed.push({ loc: [BODY], msg, type: "value_error" });
  }
  return new RequestInvalid(listed);
}

/** The path of the first string in `root` the database cannot store; walked without recursion. */
function unstorableTextAt(root: unknown): (string | number)[] | undefined {
  const pending: [unknown, (string | number)[]][] = [[root, []]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, path] = next;
    if (typeof value === "string") {
      if (!isStorableText(value)) return path;
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => {
        pending.push([item, [...path, index]]);
      });
    } else if (typeof value === "object" && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        if (!isStorableText(key)) return [...path, key];
        pending.push([item, [...path, key]]);
      }
    }
  }
  return undefined;
}

function segmentOf(segment: string): string | number {
  return /^\d+$/.test(segment) ? Number(segment) : segment;
}
