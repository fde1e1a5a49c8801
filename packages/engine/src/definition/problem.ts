/** A step along a path into a definition: a map key or a list index. */
export type PathSegment = string | number;

/** A fault found in a definition, before it is tied to a place in the source file. */
export interface DefinitionProblem {
  path: PathSegment[];
  /** Whether the fault lies in the last key itself (unknown key) or in its value. */
  at: "key" | "value";
  message: string;
  /** Where in the string value the fault lies (a name inside a template), when it is known. */
  index?: number;
}

/** Renders a path as `steps/2/http/url`, or `$` for the whole definition. */
export function formatPath(path: readonly PathSegment[]): string {
  return path.length === 0 ? "$" : path.join("/");
}
