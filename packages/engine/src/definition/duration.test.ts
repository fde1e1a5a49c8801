import { describe, expect, it } from "vitest";
import { DEFAULT_SKILL_TIMEOUT_MS, parseDuration } from "./duration.js";

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
