import { describe, expect, it } from "vitest";
import { input } from "../../test-support/fixtures.js";
import { inputValues } from "./input-values.js";

describe("the inputs a run is started with", () => {
  it("reads numbers, ticks, JSON and text by the input's type", () => {
    const inputs = [
      input({ json_key: "seats", data_type: "number" }),
      input({ json_key: "gift", data_type: "boolean" }),
      input({ json_key: "items", data_type: "object" }),
      input({ json_key: "name", data_type: "string" }),
    ];
    const draft = { seats: "3", gift: false, items: '{"a": 1}', name: "Ada" };
    expect(inputValues(inputs, draft, {})).toEqual({
      values: { seats: 3, gift: false, items: { a: 1 }, name: "Ada" },
      issues: {},
    });
  });

  it("leaves out an empty optional input and sends an empty required one", () => {
    const inputs = [
      input({ json_key: "note", data_type: "string", required: false }),
      input({ json_key: "name", data_type: "string" }),
    ];
    expect(inputValues(inputs, { note: "", name: "" }, {}).values).toEqual({ name: "" });
  });

  it("names an input whose JSON cannot be read, and leaves it out", () => {
    const inputs = [input({ json_key: "items", data_type: "array" })];
    expect(inputValues(inputs, { items: "[1," }, {})).toEqual({
      values: {},
      issues: { items: "Not valid JSON." },
    });
  });

  it("gives a file input the id of its upload, and nothing when no file was uploaded", () => {
    const inputs = [
      input({ json_key: "report", data_type: "file" }),
      input({ json_key: "photo", data_type: "file", required: false }),
    ];
    const draft = { report: null, photo: null };
    expect(inputValues(inputs, draft, { report: "file_1" }).values).toEqual({ report: "file_1" });
  });
});
