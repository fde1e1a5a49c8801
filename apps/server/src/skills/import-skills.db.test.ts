import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../db/database.js";
import { SkillRepository } from "../db/repositories/skills.js";
import type { Clock } from "../domain/clock.js";
import { paths } from "../paths.js";
import { createTestDatabase, type TestDatabase } from "../test-support/test-database.js";
import { importSkills, SkillImportFailed } from "./import-skills.js";

const SUM = `id: skill_sum
name: Sum
inputs:
  - { json_key: a, data_type: number }
  - { json_key: b, data_type: number, required: false, default: 2 }
steps:
  - set: { total: "{{ inputs.a + inputs.b }}" }
`;

let dir: string;
let database: TestDatabase;
let db: Database;
let now: Date;
let skills: SkillRepository;
const clock: Clock = { now: () => now };

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "skillrun-import-"));
  database = await createTestDatabase();
  db = await openDatabase(database.url);
  now = new Date("2026-11-22T10:00:00.000Z");
  skills = new SkillRepository(db.prisma, db.direct, clock);
});
afterEach(async () => {
  await db.close();
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe("skills import", () => {
  it("imports every example skill of skills/", async () => {
    const results = await importSkills(skills, "demo", paths.skills);
    expect(results.length).toBeGreaterThanOrEqual(3);
    expect(results.every((r) => r.outcome === "created")).toBe(true);
    const stored = await skills.list("demo");
    expect(stored.map((s) => s.id).sort()).toEqual(results.map((r) => r.id).sort());
  });

  it("stores the declared inputs in the API's Input shape", async () => {
    await importSkills(skills, "o", write("sum.yaml", SUM));
    expect((await skills.get("o", "skill_sum"))?.inputs).toEqual([
      { id: "input_a", json_key: "a", data_type: "number", required: true },
      { id: "input_b", json_key: "b", data_type: "number", required: false, default: 2 },
    ]);
  });

  it("keeps last_modified_at when an unchanged skill is imported again", async () => {
    const file = write("sum.yaml", SUM);
    await importSkills(skills, "o", file);
    now = new Date("2026-11-22T11:00:00.000Z");
    expect((await importSkills(skills, "o", file))[0]?.outcome).toBe("unchanged");
    expect((await skills.get("o", "skill_sum"))?.last_modified_at).toBe("2026-11-22T10:00:00.000Z");
  });

  it("keeps the file's text, comments included, unless adapt changed the definition", async () => {
    const commented = `# Adds two numbers.\n${SUM}`;
    await importSkills(skills, "o", write("sum.yaml", commented));
    expect((await skills.text("o", "skill_sum"))?.source).toBe(commented);
    // Imported again with another comment: the same definition, the new text.
    const recommented = commented.replace("Adds", "Sums");
    expect((await importSkills(skills, "o", write("sum.yaml", recommented)))[0]?.outcome).toBe(
      "unchanged",
    );
    expect((await skills.text("o", "skill_sum"))?.source).toBe(recommented);
    await importSkills(skills, "p", write("sum.yaml", commented), (definition) => ({
      ...definition,
      name: "Adapted",
    }));
    const adapted = await skills.text("p", "skill_sum");
    expect(adapted?.source).toBeNull();
    expect(adapted?.definition).toMatchObject({ id: "skill_sum", name: "Adapted" });
    expect(await skills.text("o", "skill_nowhere")).toBeNull();
  });

  it("moves last_modified_at, not created_at, when the definition changed", async () => {
    await importSkills(skills, "o", write("sum.yaml", SUM));
    now = new Date("2026-11-22T11:00:00.000Z");
    const changed = write("sum.yaml", SUM.replace("name: Sum", "name: Addition"));
    expect((await importSkills(skills, "o", changed))[0]?.outcome).toBe("updated");
    const skill = await skills.get("o", "skill_sum");
    expect(skill).toMatchObject({
      name: "Addition",
      created_at: "2026-11-22T10:00:00.000Z",
      last_modified_at: "2026-11-22T11:00:00.000Z",
    });
  });

  it("imports nothing when one file of a folder is invalid, and names file and line", async () => {
    write("a-sum.yaml", SUM);
    const bad = write(
      "b-bad.yaml",
      "id: skill_bad\nname: Bad\nsteps:\n  - clik: { selector: a }\n",
    );
    const failure = await importSkills(skills, "o", dir).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(SkillImportFailed);
    expect((failure as SkillImportFailed).message).toMatch(
      new RegExp(`^${bad.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:4:5: .*unknown step kind "clik"`),
    );
    expect(await skills.list("o")).toEqual([]);
  });

  it("rejects two files that define the same skill id", async () => {
    write("a.yaml", SUM);
    const second = write("b.yaml", SUM);
    const failure = (await importSkills(skills, "o", dir).catch((e: unknown) => e)) as Error;
    expect(failure.message).toBe(
      `${second}:1:1: id: skill id "skill_sum" is also defined in ${join(dir, "a.yaml")}`,
    );
    expect(await skills.list("o")).toEqual([]);
  });

  it("keeps the same skill id apart for two owners", async () => {
    const file = write("sum.yaml", SUM);
    await importSkills(skills, "alice", file);
    await importSkills(skills, "bob", file);
    expect((await skills.get("alice", "skill_sum"))?.owner).toBe("alice");
    expect((await skills.get("bob", "skill_sum"))?.owner).toBe("bob");
  });

  describe("calls", () => {
    const caller = (id: string, callee: string) =>
      `id: ${id}\nname: ${id}\nsteps:\n  - log: start\n  - repeat:\n      max: 1\n      steps:\n        - call: { skill: ${callee} }\n`;

    it("imports a skill calling one imported with it or stored before", async () => {
      write("a.yaml", caller("skill_a", "skill_b"));
      write("b.yaml", "id: skill_b\nname: B\nsteps:\n  - log: b\n");
      await importSkills(skills, "o", dir);
      await importSkills(skills, "o", write("c.yaml", caller("skill_c", "skill_a")));
      expect((await skills.list("o")).map((s) => s.id).sort()).toEqual([
        "skill_a",
        "skill_b",
        "skill_c",
      ]);
    });

    it("refuses a call of a skill the owner does not have, at the call", async () => {
      await importSkills(
        skills,
        "other",
        write("b.yaml", "id: skill_b\nname: B\nsteps:\n  - log: b\n"),
      );
      const file = write("a.yaml", caller("skill_a", "skill_b"));
      const failure = (await importSkills(skills, "o", file).catch((e: unknown) => e)) as Error;
      expect(failure).toBeInstanceOf(SkillImportFailed);
      expect(failure.message).toBe(
        `${file}:8:26: steps/1/repeat/steps/0/call/skill: unknown skill "skill_b" in call (known: skill_a); import it for the same owner`,
      );
      expect(await skills.list("o")).toEqual([]);
    });

    it("refuses calls that form a cycle, within the import or through stored skills", async () => {
      write("a.yaml", caller("skill_a", "skill_b"));
      write("b.yaml", caller("skill_b", "skill_a"));
      const failure = (await importSkills(skills, "o", dir).catch((e: unknown) => e)) as Error;
      expect(failure.message.split("\n")).toEqual([
        `${join(dir, "a.yaml")}:8:26: steps/1/repeat/steps/0/call/skill: calls form a cycle: skill_a → skill_b → skill_a; a skill cannot reach itself`,
        `${join(dir, "b.yaml")}:8:26: steps/1/repeat/steps/0/call/skill: calls form a cycle: skill_b → skill_a → skill_b; a skill cannot reach itself`,
      ]);
      expect(await skills.list("o")).toEqual([]);

      // skill_b stored calling nothing, then skill_a calling it, then skill_b changed to call skill_a.
      await importSkills(
        skills,
        "o",
        write("b2.yaml", "id: skill_b\nname: B\nsteps:\n  - log: b\n"),
      );
      await importSkills(skills, "o", write("a2.yaml", caller("skill_a", "skill_b")));
      const closing = write("b3.yaml", caller("skill_b", "skill_a"));
      const later = (await importSkills(skills, "o", closing).catch((e: unknown) => e)) as Error;
      expect(later.message).toMatch(/calls form a cycle: skill_b → skill_a → skill_b/);
      const self = write("self.yaml", caller("skill_self", "skill_self"));
      const own = (await importSkills(skills, "o", self).catch((e: unknown) => e)) as Error;
      expect(own.message).toMatch(/calls form a cycle: skill_self → skill_self/);
    });
  });
});
