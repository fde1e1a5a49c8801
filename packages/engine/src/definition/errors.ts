/** One fault in a skill definition, tied to its place in the source file. */
export interface SkillDefinitionIssue {
  file: string;
  /** 1-based; 0 when the file could not be read at all. */
  line: number;
  /** 1-based; 0 when the file could not be read at all. */
  column: number;
  /** Where in the definition, e.g. `steps/2/http/url`, or `$` for the whole of it. */
  path: string;
  message: string;
}

/** `file:line:column: path: message`, as compilers print it. */
export function formatIssue(issue: SkillDefinitionIssue): string {
  return `${issue.file}:${issue.line}:${issue.column}: ${issue.path}: ${issue.message}`;
}

/** A skill definition that cannot be used; `message` lists every issue, one per line. */
export class SkillDefinitionError extends Error {
  override readonly name = "SkillDefinitionError";
  readonly issues: readonly SkillDefinitionIssue[];

  constructor(issues: readonly SkillDefinitionIssue[]) {
    super(issues.map(formatIssue).join("\n"));
    this.issues = issues;
  }
}
