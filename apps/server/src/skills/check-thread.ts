import {
  parseSkillSource,
  type SkillDefinition,
  SkillDefinitionError,
  type SkillDefinitionIssue,
} from "@skillrun/engine";
import { isStorableText } from "../db/storable-text.js";
import { callProblems } from "./call-graph.js";

/** What a check thread is given: the text as sent and what the owner already has. */
export interface SkillCheckTask {
  text: string;
  /** The name problems are placed in ("body"). */
  file: string;
  /** The id in the address of a PUT, which the definition's id must match. */
  idInAddress?: string;
  /** The owner's stored definitions by id, for the calls' checks. */
  stored: Map<string, unknown>;
}

export type SkillCheckResult =
  | { ok: true; definition: SkillDefinition }
  | { ok: false; issues: readonly SkillDefinitionIssue[] };

/**
 * Parses and checks a skill definition exactly as an import does (format, templates, references,
 * the skills its calls name), plus what the API adds: text the database can store, and the id of
 * the address. Runs on a thread of the skill checker's pool (skill-checker.ts), never on the
 * thread that serves HTTP: its cost grows with the definition, which the sender chooses.
 */
export default function checkSkill(task: SkillCheckTask): SkillCheckResult {
  let source: ReturnType<typeof parseSkillSource>;
  try {
    source = parseSkillSource(task.text, task.file);
  } catch (error) {
    if (error instanceof SkillDefinitionError) return { ok: false, issues: error.issues };
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
  const { idInAddress } = task;
  if (idInAddress !== undefined && definition.id !== idInAddress) {
    issues.push(
      source.issueAt(
        ["id"],
        `the definition's id "${definition.id}" is not the id in the address, "${idInAddress}"`,
      ),
    );
  }
  const imported = { id: definition.id, definition, issueAt: source.issueAt };
  issues.push(...callProblems([imported], task.stored));
  return issues.length > 0 ? { ok: false, issues } : { ok: true, definition };
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
