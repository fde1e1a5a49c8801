import { readFile } from "node:fs/promises";
import { messageOf } from "../error-message.js";
import { SkillDefinitionError } from "./errors.js";
import { parseSkillSource, type SkillSource } from "./parse.js";
import type { SkillDefinition } from "./types.js";

const READ_FAILURES: Record<string, string> = {
  ENOENT: "no such file",
  EISDIR: "is a directory, not a file",
  EACCES: "permission denied",
};

/** Reads and parses a skill file; an unreadable file is a `SkillDefinitionError` at line 0. */
export async function loadSkillFile(path: string): Promise<SkillDefinition> {
  return (await loadSkillSource(path)).definition;
}

/** As loadSkillFile, keeping the source to place later issues in. */
export async function loadSkillSource(path: string): Promise<SkillSource> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    const reason = READ_FAILURES[code] ?? messageOf(error);
    const issue = {
      file: path,
      line: 0,
      column: 0,
      path: "$",
      message: `cannot read file: ${reason}`,
    };
    throw new SkillDefinitionError([issue]);
  }
  return parseSkillSource(text, path);
}
