import { describe, expect, it } from "vitest";
import { SECRET_MASK, SecretMask } from "./secret-mask.js";

describe("SecretMask", () => {
  it("masks every occurrence inside strings, keys included, and leaves other values", () => {
    const masker = new SecretMask();
    masker.add("hunter2");
    expect(
      masker.mask({
        message: "login with hunter2, then hunter2 again",
        list: ["hunter2", 42, true, null, { deep: "xhunter2x" }],
        hunter2: "key",
      }),
    ).toEqual({
      message: `login with ${SECRET_MASK}, then ${SECRET_MASK} again`,
      list: [SECRET_MASK, 42, true, null, { deep: `x${SECRET_MASK}x` }],
      [SECRET_MASK]: "key",
    });
  });

  it("masks the longest value first, so a value containing another is masked whole", () => {
    const masker = new SecretMask();
    masker.add("abc");
    masker.add("abcdef");
    expect(masker.maskText("abcdef and abc")).toBe("*** and ***");
  });

  it("masks the JSON-escaped and percent-encoded forms of a value", () => {
    const masker = new SecretMask();
    const value = 'p"a/ss w+rd';
    masker.add(value);
    expect(masker.maskText(JSON.stringify({ password: value }))).toBe('{"password":"***"}');
    expect(masker.maskText(`https://x.example/?t=${encodeURIComponent(value)}`)).toBe(
      "https://x.example/?t=***",
    );
  });

  it("ignores the empty string and returns values untouched when it knows no secret", () => {
    const masker = new SecretMask();
    masker.add("");
    const value = { a: "text" };
    expect(masker.size).toBe(0);
    expect(masker.mask(value)).toBe(value);
  });

  it("does not recognise a value an expression transformed", () => {
    const masker = new SecretMask();
    masker.add("hunter2");
    expect(masker.maskText("HUNTER2")).toBe("HUNTER2");
  });
});
