import { type SkillCall, type SkillDefinitionIssue, skillCalls } from "@skillrun/engine";

/** A skill being imported: its calls, and how to place an issue about one in its file. */
export interface ImportedSkill {
  id: string;
  definition: unknown;
  issueAt(path: readonly (string | number)[], message: string): SkillDefinitionIssue;
}

/**
 * The problems of the imported skills' `call`s against what the owner will have once the import
 * is stored (the stored skills, replaced by the imported ones): a call of a skill that does not
 * exist, and a call that closes a cycle (a skill reaching itself again), each at the call.
 */
export function callProblems(
  imported: ImportedSkill[],
  stored: Map<string, unknown>,
): SkillDefinitionIssue[] {
  const definitions = new Map(stored);
  for (const skill of imported) definitions.set(skill.id, skill.definition);
  const callsOf = (id: string): SkillCall[] => skillCalls(definitions.get(id));
  const issues: SkillDefinitionIssue[] = [];
  for (const skill of imported) {
    for (const call of callsOf(skill.id)) {
      if (!definitions.has(call.skill)) {
        issues.push(skill.issueAt(call.path, unknownSkill(call.skill, [...definitions.keys()])));
        continue;
      }
      const cycle = pathBack(call.skill, skill.id, callsOf);
      if (cycle !== undefined) {
        const loop = [skill.id, ...cycle].join(" → ");
        issues.push(
          skill.issueAt(call.path, `calls form a cycle: ${loop}; a skill cannot reach itself`),
        );
      }
    }
  }
  return issues;
}

function unknownSkill(id: string, known: string[]): string {
  const list = known.length === 0 ? "the owner has no skills" : `known: ${known.sort().join(", ")}`;
  return `unknown skill "${id}" in call (${list}); import it for the same owner`;
}

/** The chain of calls from `from` back to `to` (both included), or undefined if there is none. */
function pathBack(
  from: string,
  to: string,
  callsOf: (id: string) => SkillCall[],
): string[] | undefined {
  const seen = new Set<string>();
  const search = (id: string): string[] | undefined => {
    if (id === to) return [id];
    if (seen.has(id)) return undefined;
    seen.add(id);
    for (const call of callsOf(id)) {
      const rest = search(call.skill);
      if (rest !== undefined) return [id, ...rest];
    }
    return undefined;
  };
  return search(from);
}
