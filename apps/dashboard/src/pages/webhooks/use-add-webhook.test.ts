import { describe, expect, it } from "vitest";
import { CallFailed } from "../../api/errors.js";
import { issueAt } from "./use-add-webhook.js";

describe("a refused endpoint's issue at a field", () => {
  const error = new CallFailed(422, "refused", [
    { loc: ["body", "url"], msg: "must be http or https", type: "x" },
  ]);

  it("is the message whose loc names the field", () => {
    expect(issueAt(error, "url")).toBe("must be http or https");
    expect(issueAt(error, "events")).toBeUndefined();
  });

  it("is none for an error that is not a refusal", () => {
    expect(issueAt(new Error("offline"), "url")).toBeUndefined();
  });
});
