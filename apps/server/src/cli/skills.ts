import { stringify } from "yaml";
import { importSkills, SkillImportFailed } from "../skills/import-skills.js";
import { withRepositories } from "./with-database.js";

/** `skillrun skills import PATH --owner O`: all files or none; every problem is listed. */
export async function skillsImport(path: string, owner: string): Promise<number> {
  try {
    const results = await withRepositories((repos) => importSkills(repos.skills, owner, path));
    for (const r of results) console.log(`${r.outcome.padEnd(9)} ${r.id}  (${r.file})`);
    console.log(`Imported ${results.length} skill(s) for owner "${owner}".`);
    return 0;
  } catch (error) {
    if (!(error instanceof SkillImportFailed)) throw error;
    console.error(`skillrun: nothing was imported; fix these problems first:\n${error.message}`);
    return 1;
  }
}

/** `skillrun skills list --owner O`: id, version (its first 12 hex digits), name, last change. */
export async function skillsList(owner: string): Promise<number> {
  const skills = await withRepositories((repos) => repos.skills.list(owner));
  if (skills.length === 0) {
    console.log(
      `No skills for owner "${owner}". Import some with: skillrun skills import PATH --owner ${owner}`,
    );
    return 0;
  }
  for (const s of skills) {
    const version = (s.x_version ?? "").slice(0, 12);
    // A name is the skill author's text: control characters would drive the terminal.
    const name = printable(s.name);
    console.log(`${s.id}  ${version}  ${name}  (changed ${s.last_modified_at ?? s.created_at})`);
  }
  return 0;
}

/**
 * `skillrun skills export ID --owner O`: the definition as YAML on stdout: the text it was
 * imported or PUT as, comments included, else the stored definition written out, in the form
 * `skills import` takes back as it was (see writtenDefinition).
 */
export async function skillsExport(id: string, owner: string): Promise<number> {
  const text = await withRepositories((repos) => repos.skills.text(owner, id));
  if (!text) {
    console.error(`skillrun: owner "${owner}" has no skill "${id}"`);
    return 1;
  }
  console.log((text.source ?? stringify(text.definition, { lineWidth: 0 })).trimEnd());
  return 0;
}

/** `skillrun skills delete ID --owner O`: refused while another skill calls it. */
export async function skillsDelete(id: string, owner: string): Promise<number> {
  const deleted = await withRepositories((repos) => repos.skills.delete(owner, id));
  switch (deleted.outcome) {
    case "deleted":
      console.log(`Deleted skill "${id}" of owner "${owner}"; its runs are kept.`);
      return 0;
    case "not_found":
      console.error(`skillrun: owner "${owner}" has no skill "${id}"`);
      return 1;
    case "called":
      console.error(
        `skillrun: skill "${id}" is called by ${deleted.by.join(", ")}; change or delete those first`,
      );
      return 1;
  }
}

/** Text with its control characters (C0, DEL, C1) shown as `?`. */
function printable(text: string): string {
  return Array.from(text, (char) => {
    const code = char.codePointAt(0) ?? 0;
    return code < 0x20 || (code >= 0x7f && code < 0xa0) ? "?" : char;
  }).join("");
}
