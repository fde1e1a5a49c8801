import { LineCounter, parseDocument, type YAMLError } from "yaml";
import { messageOf } from "../error-message.js";
import { SkillDefinitionError, type SkillDefinitionIssue } from "./errors.js";
import { normaliseSkillDefinition, type WrittenSkillDefinition } from "./normalise.js";
import { formatPath } from "./problem.js";
import { positionOf } from "./source-map.js";
import type { SkillDefinition } from "./types.js";
import { validateSkillDefinition } from "./validate.js";

/**
 * Parses and validates a skill definition from YAML text, filling in defaults.
 * Throws a `SkillDefinitionError` listing every problem, each at its place in `file`.
 */
export function parseSkillDefinition(text: string, file: string): SkillDefinition {
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
      ...positionOf(document, lineCounter, problem.path, problem.at),
      path: formatPath(problem.path),
      message: problem.message,
    }));
    issues.sort((a, b) => a.line - b.line || a.column - b.column);
    throw new SkillDefinitionError(issues);
  }
  return normaliseSkillDefinition(value as WrittenSkillDefinition);
}

function syntaxMessage(error: YAMLError): string {
  if (error.code === "MULTIPLE_DOCS") {
    return "YAML syntax error: a skill file holds one document, but another starts here";
  }
  const text = error.message.replace(/\.$/, "");
  return `YAML syntax error: ${text.charAt(0).toLowerCase()}${text.slice(1)}`;
}
