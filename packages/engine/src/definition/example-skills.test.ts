import { readdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadSkillFile } from "./load.js";

// The repository's skills/ folder, which the server imports at start.
const SKILLS = fileURLToPath(new URL("../../../../skills/", import.meta.url));
const files = (await readdir(SKILLS)).filter((name) => /\.ya?ml$/.test(name)).sort();

describe("the example skills", () => {
  it("are there to load, the first three among them", () => {
    expect(files).toEqual(expect.arrayContaining(["hello.yaml", "http-get-json.yaml", "sum.yaml"]));
  });

  it.each(files)("%s parses without issues", async (name) => {
    const skill = await loadSkillFile(`${SKILLS}${name}`);
    expect(skill.steps.length).toBeGreaterThan(0);
  });

  it("use distinct ids", async () => {
    const skills = await Promise.all(files.map((name) => loadSkillFile(`${SKILLS}${name}`)));
    const ids = skills.map((skill) => skill.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
