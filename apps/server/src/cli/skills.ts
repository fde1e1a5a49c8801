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
