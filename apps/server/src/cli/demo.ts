import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { localDataDir } from "../db/database-url.js";
import { paths } from "../paths.js";
import type { Repositories } from "../repositories.js";
import { importSkills } from "../skills/import-skills.js";

export const DEMO_OWNER = "demo";

/**
 * Prepares the demo of `skillrun serve --demo`: imports skills/ for owner "demo" and returns an
 * API key for it. The key is kept in a file beside the database (readable by this user only) so
 * that every start prints the same working key; only its hash is in the database.
 */
export async function prepareDemo(repos: Repositories, databaseUrl: string): Promise<string> {
  await importSkills(repos.skills, DEMO_OWNER, paths.skills);
  const keyFile = join(localDataDir(databaseUrl), "demo-api-key");
  if (existsSync(keyFile)) {
    const kept = readFileSync(keyFile, "utf8").trim();
    if ((await repos.apiKeys.ownerOf(kept)) === DEMO_OWNER) return kept;
  }
  const { key } = await repos.apiKeys.create(DEMO_OWNER);
  mkdirSync(dirname(keyFile), { recursive: true });
  writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
  return key;
}
