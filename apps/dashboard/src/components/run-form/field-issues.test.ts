import { describe, expect, it } from "vitest";
import { CallFailed } from "../../api/errors.js";
import { issuesByField, localFailure } from "./field-issues.js";

describe("a refusal's issues by field", () => {
  it("puts an input's issue at its key and the others together under ''", () => {
    const error = new CallFailed(422, "refused", [
      { loc: ["body", "inputs", "seats"], msg: "not a number", type: "x" },
      { loc: ["body", "skill_id"], msg: "unknown skill", type: "x" },
      { loc: ["body"], msg: "too large", type: "x" },
    ]);
    expect(issuesByField(error)).toEqual({
      seats: "not a number",
      "": "unknown skill; too large",
    });
  });

  it("has none for an error that is not a refusal", () => {
    expect(issuesByField(new Error("offline"))).toEqual({});
  });

  it("reads back the problems found before sending, at their fields", () => {
    expect(issuesByField(localFailure({ items: "Not valid JSON." }))).toEqual({
      items: "Not valid JSON.",
    });
  });
});
