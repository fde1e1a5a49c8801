import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SecretBox, SecretUnreadable } from "./secret-box.js";

const key = randomBytes(32);
const box = new SecretBox(() => key);
const CONTEXT = ["secret", "alice", "api_token"];

function unreadable(open: () => string): string {
  try {
    open();
  } catch (error) {
    expect(error).toBeInstanceOf(SecretUnreadable);
    return (error as Error).message;
  }
  throw new Error("expected SecretUnreadable");
}

describe("SecretBox", () => {
  it("opens what it sealed, and seals the same text differently each time", () => {
    const text = "hunter2 — é 💥 \u0000 end";
    const first = box.seal(text, CONTEXT);
    const second = box.seal(text, CONTEXT);
    expect(first).not.toBe(second);
    expect(first).not.toContain("hunter2");
    expect(first).toMatch(/^v1\.[0-9a-f]{16}\.[\w-]{16}\.[\w-]+\.[\w-]{22}$/);
    expect(box.open(first, CONTEXT)).toBe(text);
    expect(box.open(second, CONTEXT)).toBe(text);
  });

  it("does not open a value sealed for another owner, name or purpose", () => {
    const sealed = box.seal("hunter2", CONTEXT);
    for (const context of [
      ["secret", "bob", "api_token"],
      ["secret", "alice", "other"],
      ["run_input", "alice", "api_token"],
      // Parts are kept apart: moving a character between them is another context.
      ["secret", "alic", "eapi_token"],
    ]) {
      expect(unreadable(() => box.open(sealed, context))).toMatch(/^it does not authenticate/);
    }
  });

  it("does not open an altered value: IV, ciphertext or tag", () => {
    const parts = box.seal("hunter2", CONTEXT).split(".");
    for (const index of [2, 3, 4]) {
      const changed = [...parts];
      const part = changed[index] ?? "";
      // The first character: every bit of it is data (a last one may carry padding bits only).
      changed[index] = `${part.startsWith("A") ? "Q" : "A"}${part.slice(1)}`;
      expect(unreadable(() => box.open(changed.join("."), CONTEXT))).toMatch(
        /^it does not authenticate/,
      );
    }
  });

  it("says when a value was sealed under another key, naming both key ids", () => {
    const other = new SecretBox(() => randomBytes(32));
    const sealed = other.seal("hunter2", CONTEXT);
    expect(unreadable(() => box.open(sealed, CONTEXT))).toBe(
      `it was sealed under another key (key id ${other.keyId}; this server's is ${box.keyId}): every server and worker sharing a database needs the same SECRETS_KEY`,
    );
  });

  it("refuses what is not a sealed value", () => {
    for (const text of ["", "hunter2", "v1.a.b", "v2.x.y.z.w", `v1.${box.keyId}.AA.AA.AA`]) {
      expect(unreadable(() => box.open(text, CONTEXT))).toBe("it is not a value Skillrun sealed");
    }
  });

  it("digests text to the same value for the same context and key, to another otherwise", () => {
    const digest = box.digest("1234", CONTEXT);
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(box.digest("1234", CONTEXT)).toBe(digest);
    expect(new SecretBox(() => key).digest("1234", CONTEXT)).toBe(digest);
    // Not a plain hash: without the key, guessing the text and hashing it finds nothing.
    expect(digest).not.toBe(createHash("sha256").update("1234").digest("hex"));
    expect(new SecretBox(() => randomBytes(32)).digest("1234", CONTEXT)).not.toBe(digest);
    expect(box.digest("1235", CONTEXT)).not.toBe(digest);
    expect(box.digest("1234", ["secret", "bob", "api_token"])).not.toBe(digest);
    // Parts are kept apart: moving text between the context and the digested text changes it.
    expect(box.digest("4", ["secret", "alice", "api_token123"])).not.toBe(
      box.digest("1234", ["secret", "alice", "api_token"]),
    );
  });

  it("loads its key once, when first needed", () => {
    let loads = 0;
    const lazy = new SecretBox(() => {
      loads += 1;
      return key;
    });
    expect(loads).toBe(0);
    lazy.open(lazy.seal("x", CONTEXT), CONTEXT);
    expect(loads).toBe(1);
  });
});
