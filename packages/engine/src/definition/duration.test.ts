import { describe, expect, it } from "vitest";
import { DEFAULT_SKILL_TIMEOUT_MS, MAX_DURATION_MS, parseDuration } from "./duration.js";
import { SkillDefinitionError } from "./errors.js";
import { parseSkillDefinition } from "./parse.js";

describe("parseDuration", () => {
  it.each([
    ["500ms", 500],
    ["2s", 2000],
    ["1.5s", 1500],
    ["2m", 120_000],
    ["1h", 3_600_000],
    ["0s", 0],
  ])("reads %s as %i ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(["2x", "2", "s", "-1s", "1.s", "2 s", " 2s", "2S", ""])("rejects %j", (text) => {
    expect(() => parseDuration(text)).toThrow(
      `${JSON.stringify(text)} is not a duration (expected e.g. 500ms, 2s, 2m)`,
    );
  });

  it("gives skills ten minutes by default", () => {
    expect(DEFAULT_SKILL_TIMEOUT_MS).toBe(600_000);
  });
});

describe("the longest duration", () => {
  it("accepts 24h and refuses anything longer", () => {
    expect(parseDuration("24h")).toBe(MAX_DURATION_MS);
    expect(parseDuration("1440m")).toBe(MAX_DURATION_MS);
    for (const text of ["24.001h", "600h", "86400001ms", "1441m"]) {
      expect(() => parseDuration(text)).toThrow(
        `${JSON.stringify(text)} is longer than 24h, the longest duration a skill may give`,
      );
    }
  });

  it("refuses every duration of a skill over 24h at import, each at its place", () => {
    const yaml = [
      "id: skill_long",
      "name: Long",
      "timeout: 597h",
      "steps:",
      "  - wait: 600h",
      "  - http: { url: 'http://example.test', timeout: 25h }",
      "    timeout: 48h",
      "    retry: { attempts: 2, backoff: 30h }",
      "  - wait: 24h",
    ].join("\n");
    let error: unknown;
    try {
      parseSkillDefinition(yaml, "long.yaml");
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SkillDefinitionError);
    const issues = (error as SkillDefinitionError).issues.map((i) => `${i.path}: ${i.message}`);
    expect(issues.sort()).toEqual(
      [
        'timeout: "597h" is longer than 24h, the longest duration a skill may give',
        'steps/0/wait: "600h" is longer than 24h, the longest duration a skill may give',
        'steps/1/http/timeout: "25h" is longer than 24h, the longest duration a skill may give',
        'steps/1/timeout: "48h" is longer than 24h, the longest duration a skill may give',
        'steps/1/retry/backoff: "30h" is longer than 24h, the longest duration a skill may give',
      ].sort(),
    );
  });
});
