import {
  type Document,
  isCollection,
  LineCounter,
  parseDocument,
  visit,
  type YAMLError,
} from "yaml";
import { messageOf } from "../error-message.js";
import { SkillDefinitionError, type SkillDefinitionIssue } from "./errors.js";
import { normaliseSkillDefinition, type WrittenSkillDefinition } from "./normalise.js";
import { formatPath, type PathSegment } from "./problem.js";
import { positionOf } from "./source-map.js";
import type { SkillDefinition } from "./types.js";
import { validateSkillDefinition } from "./validate.js";

/** A parsed definition and a way back to its source, for checks made later (an import's). */
export interface SkillSource {
  definition: SkillDefinition;
  /** The text it was parsed from, comments and all. */
  text: string;
  /** An issue about the thing at `path` (as written, e.g. `steps/0/call/skill`), placed in the file. */
  issueAt(path: readonly PathSegment[], message: string): SkillDefinitionIssue;
}

/**
 * Parses and validates a skill definition from YAML text, filling in defaults.
 * Throws a `SkillDefinitionError` listing every problem, each at its place in `file`.
 */
export function parseSkillDefinition(text: string, file: string): SkillDefinition {
  return parseSkillSource(text, file).definition;
}

/** As parseSkillDefinition, keeping the source to place later issues in. */
export function parseSkillSource(text: string, file: string): SkillSource {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number): Pick<SkillDefinitionIssue, "line" | "column"> => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  if (document.errors.length > 0) {
    throw new SkillDefinitionError(
      document.errors.map((error) => ({
        file,
        ...at(error.pos[0]),
        path: "$",
        message: syntaxMessage(error),
      })),
    );
  }
  const keyed = collectionKeys(document);
  if (keyed.length > 0) {
    throw new SkillDefinitionError(
      keyed.map((offset) => ({ file, ...at(offset), path: "$", message: COLLECTION_KEY })),
    );
  }
  let value: unknown;
  try {
    value = document.toJS();
  } catch (error) {
    // e.g. too many alias expansions (a "billion laughs" document).
    const message = messageOf(error);
    throw new SkillDefinitionError([{ file, line: 1, column: 1, path: "$", message }]);
  }
  const problems = validateSkillDefinition(value);
  if (problems.length > 0) {
    const issues = problems.map((problem) => ({
      file,
      ...positionOf(
        document,
        lineCounter,
        problem.path,
        problem.at,
        problem.index === undefined ? undefined : { source: text, index: problem.index },
      ),
      path: formatPath(problem.path),
      message: problem.message,
    }));
    issues.sort((a, b) => a.line - b.line || a.column - b.column);
    throw new SkillDefinitionError(issues);
  }
  return {
    definition: normaliseSkillDefinition(value as WrittenSkillDefinition),
    text,
    issueAt: (path, message) => ({
      file,
      ...positionOf(document, lineCounter, path, "value"),
      path: formatPath(path),
      message,
    }),
  };
}

/** Said where a map or list is used as a key, mostly an unquoted template. */
const COLLECTION_KEY =
  'a map or list cannot be a key: a value that starts with a template must be quoted, as in `log: "{{ inputs.x }}"` (unquoted, YAML reads `{{ … }}` as a map inside a map)';

/**
 * Where a map has a map or list as a key, e.g. `log: {{ inputs.x }}` unquoted. Refused before
 * `toJS`, which would turn such a key into text and print a warning on the console.
 */
function collectionKeys(document: Document): number[] {
  const offsets: number[] = [];
  visit(document, {
    Map(_key, map) {
      if (map.items.some((pair) => isCollection(pair.key)) && map.range) {
        offsets.push(map.range[0]);
      }
    },
  });
  return offsets;
}

function syntaxMessage(error: YAMLError): string {
  if (error.code === "MULTIPLE_DOCS") {
    return "YAML syntax error: a skill file holds one document, but another starts here";
  }
  const text = error.message.replace(/\.$/, "");
  return `YAML syntax error: ${text.charAt(0).toLowerCase()}${text.slice(1)}`;
}
