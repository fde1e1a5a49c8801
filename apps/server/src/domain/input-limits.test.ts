import { describe, expect, it } from "vitest";
import { inputLimitIssue } from "./input-limits.js";

const limits = { maxBytes: 100, maxDepth: 3 };

function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

describe("inputLimitIssue", () => {
  it("accepts inputs exactly at the depth limit", () => {
    expect(inputLimitIssue({ a: nested(2) }, limits)).toBeNull();
  });

  it("refuses one level more, at body.inputs", () => {
    expect(inputLimitIssue({ a: nested(3) }, limits)).toEqual({
      loc: ["body", "inputs"],
      msg: "Value error, inputs must not be nested more than 3 levels deep",
      type: "value_error",
    });
  });

  it("measures 100,000 levels without exhausting the stack", () => {
    expect(inputLimitIssue({ a: nested(100_000) }, limits)?.type).toBe("value_error");
  });

  it("refuses inputs larger than the byte limit as JSON, counting UTF-8 bytes", () => {
    // {"s":"…"} is 8 bytes around the text; "é" is 2 bytes in UTF-8.
    expect(inputLimitIssue({ s: "é".repeat(46) }, limits)).toBeNull();
    expect(inputLimitIssue({ s: "é".repeat(47) }, limits)?.msg).toBe(
      "Value error, inputs must not be larger than 100 bytes as JSON (got 102)",
    );
  });
});
