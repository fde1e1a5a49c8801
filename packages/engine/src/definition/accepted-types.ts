import { isRecord } from "./describe.js";
import type { DefinitionProblem } from "./problem.js";

/**
 * A media range a `file` input's `accept` lists: `type/subtype` or `type/*`, lower case, no
 * parameters (a file's charset does not decide what kind of file it is).
 */
export const MEDIA_RANGE_PATTERN = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/(\*|[a-z0-9][a-z0-9!#$&^_.+-]*)$/;

/** Most media ranges one `accept` lists. */
export const MAX_ACCEPTED_TYPES = 32;

/** What an input's `accept` may not be: on an input that is not a `file`. */
export function acceptedTypeProblems(inputs: unknown[]): DefinitionProblem[] {
  const problems: DefinitionProblem[] = [];
  inputs.forEach((input, index) => {
    if (!isRecord(input) || !("accept" in input)) return;
    if (input.data_type !== "file" && typeof input.data_type === "string") {
      const message = `accept goes with data_type "file", not "${input.data_type}"`;
      problems.push({ path: ["inputs", index, "accept"], at: "key", message });
    }
  });
  return problems;
}

/**
 * Whether a file of `contentType` (as kept: `text/csv; charset=utf-8`) is one `accept` lists:
 * its type and subtype equal, case aside, to one of them, or its type to a `type/*`'s.
 */
export function isAcceptedType(accept: readonly string[], contentType: string): boolean {
  const essence = (contentType.split(";")[0] ?? "").trim().toLowerCase();
  const [type] = essence.split("/");
  return accept.some((range) => range === essence || range === `${type}/*`);
}
