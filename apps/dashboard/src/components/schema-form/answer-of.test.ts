import { describe, expect, it } from "vitest";
import { answerOf } from "./answer-of.js";
import type { Schema } from "./schema.js";

const form: Schema = {
  type: "object",
  properties: {
    code: { type: "string" },
    count: { type: "integer" },
    agree: { type: "boolean" },
    size: { enum: [1, 2, 3] },
    extra: {},
    address: { type: "object", properties: { city: { type: ["string", "null"] } } },
  },
};

describe("the answer a draft stands for", () => {
  it("reads each field by its path and type", () => {
    const answer = answerOf(form, {
      "input.code": "123456",
      "input.count": "4",
      "input.agree": true,
      "input.size": "2",
      "input.extra": '{"a": [1]}',
      "input.address.city": "Lyon",
    });
    expect(answer).toEqual({
      code: "123456",
      count: 4,
      agree: true,
      size: 2,
      extra: { a: [1] },
      address: { city: "Lyon" },
    });
  });

  it("leaves empty fields out and reads an unticked box as false", () => {
    expect(answerOf(form, { "input.code": "" })).toEqual({ agree: false, address: {} });
  });

  it("names the field whose JSON cannot be read", () => {
    expect(() => answerOf(form, { "input.extra": "{oops" })).toThrow("extra: not valid JSON");
    expect(() => answerOf({}, { input: "{oops" })).toThrow("The answer: not valid JSON");
  });
});
