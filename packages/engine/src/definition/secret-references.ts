import { rootReferences } from "../expressions/references.js";
import { isRecord } from "./describe.js";
import { expressionsOf, stepStrings, stringsIn } from "./templated-strings.js";
import type { SkillDefinition } from "./types.js";
import { walkSteps } from "./walk-steps.js";

/**
 * The names of the secrets a skill reads (`secrets.NAME` at the root of any expression of its
 * steps, blocks included, and its `output`), sorted. A run is given these and no others: a name
 * built at run time (`$lookup(secrets, …)`) finds nothing. The skills it calls are read on their
 * own.
 */
export function referencedSecrets(definition: SkillDefinition): string[] {
  const strings = walkSteps(definition).flatMap(({ step, path }) => stepStrings(step, path));
  if (isRecord(definition.output)) strings.push(...stringsIn(definition.output, ["output"]));
  const names = new Set<string>();
  for (const string of strings) {
    for (const { expression } of expressionsOf(string)) {
      for (const reference of rootReferences(expression)) {
        if (reference.root === "secrets" && reference.key !== undefined) {
          names.add(reference.key.name);
        }
      }
    }
  }
  return [...names].sort();
}
