import { describe, expect, it } from "vitest";
import { input } from "../../test-support/fixtures.js";
import { initialDraft } from "./input-draft.js";

const inputs = [
  input({ json_key: "name", data_type: "string", default: "Ada" }),
  input({ json_key: "seats", data_type: "number", default: 3 }),
  input({ json_key: "gift", data_type: "boolean", default: "true" }),
  input({ json_key: "items", data_type: "array", default: [1, 2] }),
  input({ json_key: "report", data_type: "file" }),
  input({ json_key: "password", data_type: "string", secret: true }),
  input({ json_key: "note", data_type: "string" }),
];

describe("the run form's first values", () => {
  it("are the defaults, as text to edit (JSON laid out for arrays and objects)", () => {
    expect(initialDraft(inputs, undefined)).toEqual({
      name: "Ada",
      seats: "3",
      gift: true,
      items: "[\n  1,\n  2\n]",
      report: null,
      password: "",
      note: "",
    });
  });

  it("are a run's inputs when it is run again, with a masked secret left to be typed again", () => {
    const draft = initialDraft(inputs, { name: "Grace", seats: 5, gift: false, password: "***" });
    expect(draft).toMatchObject({ name: "Grace", seats: "5", gift: false, password: "" });
  });

  it("keep a secret that is not masked", () => {
    expect(initialDraft(inputs, { password: "typed" }).password).toBe("typed");
  });
});
