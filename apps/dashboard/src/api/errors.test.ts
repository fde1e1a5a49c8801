import { describe, expect, it } from "vitest";
import { failureOf, messageOf } from "./errors.js";

const refusal = (status: number) => new Response(null, { status });

describe("error messages", () => {
  it("show a 422's messages without FastAPI's 'Value error,' prefix", () => {
    const failure = failureOf(refusal(422), {
      detail: [
        { loc: ["body", "url"], msg: "Value error, the address is private", type: "value_error" },
        { loc: ["body", "events"], msg: "Field required", type: "missing" },
      ],
    });
    expect(failure.message).toBe("body.url: the address is private; body.events: Field required");
    expect(failure.issues.map((issue) => issue.msg)).toEqual([
      "the address is private",
      "Field required",
    ]);
  });

  it("show a plain detail without the prefix, and leave other text as it is", () => {
    expect(failureOf(refusal(409), { detail: "Value error, not now" }).message).toBe("not now");
    expect(messageOf({ detail: "Value error, too late" })).toBe("too late");
    expect(messageOf({ detail: "A Value error, in the middle" })).toBe(
      "A Value error, in the middle",
    );
  });
});
