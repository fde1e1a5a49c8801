import { createHash } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import {
  canonicalJson,
  loadSkillSource,
  type SkillDefinition,
  SkillDefinitionError,
  type SkillDefinitionIssue,
  type SkillSource,
} from "@skillrun/engine";
import type { ImportOutcome, SkillRecord, SkillRepository } from "../db/repositories/skills.js";
import type { Input } from "../domain/api-types.js";
import { callProblems } from "./call-graph.js";

export interface ImportResult {
  file: string;
  id: string;
  outcome: ImportOutcome;
}

/** Every problem of every file, so one run of the import shows them all. */
export class SkillImportFailed extends Error {
  constructor(readonly issues: SkillDefinitionIssue[]) {
    super(issues.map((i) => `${i.file}:${i.line}:${i.column}: ${i.path}: ${i.message}`).join("\n"));
  }
}

const SKILL_FILE_EXTENSIONS = new Set([".yaml", ".yml"]);

/** The skill files at `path`: the file itself, or the YAML files of a folder in name order. */
export function skillFilesAt(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .filter((name) => SKILL_FILE_EXTENSIONS.has(extname(name)))
    .sort()
    .map((name) => join(path, name));
}

/**
 * Imports the skill files at `path` for `owner`: upsert by id, all or nothing. Any invalid file
 * (or two files with one id, or a `call` of a skill the owner will not have, or calls forming a
 * cycle) fails the whole import with every problem listed. `adapt`, when
 * given, changes each valid definition before it is stored (the demo points its defaults at the
 * server's own address with it).
 */
export async function importSkills(
  skills: SkillRepository,
  owner: string,
  path: string,
  adapt: (definition: SkillDefinition) => SkillDefinition = (definition) => definition,
): Promise<ImportResult[]> {
  const files = skillFilesAt(path);
  const issues: SkillDefinitionIssue[] = [];
  const loaded: { file: string; definition: SkillDefinition; source: SkillSource }[] = [];
  const fileOfId = new Map<string, string>();
  for (const file of files) {
    try {
      const source = await loadSkillSource(file);
      const { definition } = source;
      const earlier = fileOfId.get(definition.id);
      if (earlier) {
        issues.push({
          file,
          line: 1,
          column: 1,
          path: "id",
          message: `skill id "${definition.id}" is also defined in ${earlier}`,
        });
        continue;
      }
      fileOfId.set(definition.id, file);
      loaded.push({ file, definition: adapt(definition), source });
    } catch (error) {
      if (!(error instanceof SkillDefinitionError)) throw error;
      issues.push(...error.issues);
    }
  }
  if (issues.length > 0) throw new SkillImportFailed(issues);
  const imported = loaded.map(({ definition, source }) => ({
    id: definition.id,
    definition,
    issueAt: source.issueAt,
  }));
  issues.push(...callProblems(imported, await skills.definitions(owner)));
  if (issues.length > 0) throw new SkillImportFailed(issues);
  const outcomes = await skills.importAll(
    owner,
    loaded.map(({ definition, source }) =>
      // The file's text is kept when it is what is stored; a definition `adapt` changed is not.
      skillRecordOf(definition, sameDefinition(definition, source.definition) ? source.text : null),
    ),
  );
  return loaded.map(({ file, definition }, i) => ({
    file,
    id: definition.id,
    outcome: outcomes[i] as ImportOutcome,
  }));
}

function sameDefinition(a: SkillDefinition, b: SkillDefinition): boolean {
  return a === b || canonicalJson(a) === canonicalJson(b);
}

/**
 * What the skills table keeps of a parsed definition; `source` is the text it was parsed from
 * (kept and served back as sent), or null when there is none to keep.
 */
export function skillRecordOf(
  definition: SkillDefinition,
  source: string | null = null,
): SkillRecord {
  const inputs: Input[] = definition.inputs.map((input) => ({
    id: input.id,
    json_key: input.json_key,
    data_type: input.data_type,
    ...(input.description !== undefined && { description: input.description }),
    required: input.required,
    ...(input.default !== undefined && { default: input.default }),
    ...(input.secret === true && { secret: true }),
    ...(input.accept !== undefined && { accept: input.accept }),
  }));
  return {
    id: definition.id,
    name: definition.name,
    description: definition.description ?? null,
    inputs,
    definition,
    definitionHash: createHash("sha256").update(canonicalJson(definition)).digest("hex"),
    source,
  };
}
