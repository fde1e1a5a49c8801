import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SkillDefinitionError } from "./errors.js";
import { loadSkillFile } from "./load.js";

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "skillrun-engine-"));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe("loadSkillFile", () => {
  it("reads and parses a skill file", async () => {
    const file = join(folder, "hello.yaml");
    await writeFile(file, "id: hi\nname: Hi\nsteps:\n  - log: hi\n");
    expect(await loadSkillFile(file)).toMatchObject({ id: "hi", steps: [{ log: "hi" }] });
  });

  it("reports issues against the file's path", async () => {
    const file = join(folder, "bad.yaml");
    await writeFile(file, "id: hi\nname: Hi\nsteps: []\n");
    await expect(loadSkillFile(file)).rejects.toThrow(`${file}:3:8: steps: must not be empty`);
  });

  it("turns a missing file into an issue at line 0", async () => {
    const file = join(folder, "missing.yaml");
    const error = await loadSkillFile(file).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(SkillDefinitionError);
    expect((error as SkillDefinitionError).issues).toEqual([
      { file, line: 0, column: 0, path: "$", message: "cannot read file: no such file" },
    ]);
  });
});
