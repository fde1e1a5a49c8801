import type { SkillDefinition, SkillDefinitionIssue } from "@skillrun/engine";
import type { ImportOutcome, SkillRepository } from "../db/repositories/skills.js";
import { isStorableText } from "../db/storable-text.js";
import { RequestInvalid, type ValidationIssue } from "../domain/errors.js";
import { depthExceeds } from "../domain/input-limits.js";
import { skillRecordOf } from "./import-skills.js";
import type { SkillChecker } from "./skill-checker.js";

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
 * each problem at its line and column. The parsing and checking run on the checker's threads,
 * within its time budget. Throws a RequestInvalid listing every problem, or saying the
 * definition is too complex to check.
 */
export async function checkedSkillBody(
  checker: SkillChecker,
  skills: SkillRepository,
  owner: string,
  body: unknown,
  idInAddress?: string,
  /** A JSON body's text as sent, so that positions are in it (else they are in a rendering). */
  sentText?: string,
): Promise<SkillDefinition> {
  if (body === undefined || body === null) {
    throw new RequestInvalid([{ loc: [BODY], msg: "Field required", type: "missing" }]);
  }
  if (typeof body !== "string" && depthExceeds(body, MAX_JSON_DEPTH)) {
    const msg = `Value error, the definition nests deeper than ${MAX_JSON_DEPTH} levels`;
    throw new RequestInvalid([{ loc: [BODY], msg, type: "value_error" }]);
  }
  // JSON is YAML: the text sent is parsed as it is, so each problem's place is in it.
  const text = typeof body === "string" ? body : (sentText ?? JSON.stringify(body, null, 2));
  const stored = await skills.definitions(owner);
  const checked = await checker.check({ text, file: BODY, idInAddress, stored });
  if (checked.ok) {
    // A YAML body is stored as sent: a NUL in a comment, which YAML lets pass, must not reach
    // the database (PostgreSQL's text refuses it). Values were checked on the thread already.
    if (typeof body === "string") refuseUnstorable(body);
    return checked.definition;
  }
  if ("tooComplex" in checked) {
    const msg = `Value error, the definition is too complex: ${checked.tooComplex}`;
    throw new RequestInvalid([{ loc: [BODY], msg, type: "value_error" }]);
  }
  throw invalid(checked.issues);
}

/** Refuses text the database cannot store as it is, naming where its first such character is. */
function refuseUnstorable(text: string): void {
  if (isStorableText(text)) return;
  const index = text.search(/[\0\p{Cs}]/u);
  const before = text.slice(0, index);
  const line = before.split("\n").length;
  const column = index - before.lastIndexOf("\n");
  const msg = `Value error, line ${line}, column ${column}: this text holds a character the database cannot store (NUL, or half of a surrogate pair)`;
  throw new RequestInvalid([{ loc: [BODY], msg, type: "value_error" }]);
}

/**
 * Stores a checked definition as the owner's skill, with the YAML text it was sent as (kept and
 * served back as sent); `source` is null for a definition sent as JSON.
 */
export async function storeSkill(
  skills: SkillRepository,
  owner: string,
  definition: SkillDefinition,
  source: string | null,
): Promise<ImportOutcome> {
  const [outcome] = await skills.importAll(owner, [skillRecordOf(definition, source)]);
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

function segmentOf(segment: string): string | number {
  return /^\d+$/.test(segment) ? Number(segment) : segment;
}
