import { describe, expect, it } from "vitest";
import { storableText } from "./storable-text.js";

describe("storableText", () => {
  it("replaces NULs and lone surrogate halves with U+FFFD, and nothing else", () => {
    expect(storableText("a\0b")).toBe("a\uFFFDb");
    expect(storableText("x\ud800y\udc00z")).toBe("x\uFFFDy\uFFFDz");
    // A whole pair is one character, kept.
    expect(storableText("emoji \u{1F600} ok")).toBe("emoji \u{1F600} ok");
    const plain = "plain text, ünïcödé, 日本";
    expect(storableText(plain)).toBe(plain);
  });
});
