import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../config.js";
import { keptSecretsKey, parseSecretsKey } from "./secrets-key.js";

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "skillrun-secrets-key-"));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("SECRETS_KEY", () => {
  const key = randomBytes(32);

  it("is 32 bytes as base64, base64url or hex", () => {
    for (const text of [
      key.toString("base64"),
      key.toString("base64").replace(/=$/, ""),
      key.toString("base64url"),
      key.toString("hex"),
      key.toString("hex").toUpperCase(),
      ` ${key.toString("base64")}\n`,
    ]) {
      expect(parseSecretsKey(text).equals(key)).toBe(true);
    }
  });

  it("stops the start with a clear message, never quoting the value", () => {
    for (const text of [
      "",
      "too-short",
      randomBytes(16).toString("base64"),
      randomBytes(33).toString("base64"),
      randomBytes(32).toString("hex").slice(1),
      `${"g".repeat(64)}`,
      `${key.toString("base64").slice(0, -2)}!=`,
    ]) {
      expect(() => loadConfig({ SECRETS_KEY: text })).toThrow(
        /^Invalid configuration:\n {2}SECRETS_KEY: not a secrets key: expected 32 random bytes as base64/,
      );
      try {
        loadConfig({ SECRETS_KEY: text });
      } catch (error) {
        if (text.length > 0) expect((error as Error).message).not.toContain(text);
      }
    }
    expect(loadConfig({}).SECRETS_KEY).toBeUndefined();
  });
});

describe("keptSecretsKey", () => {
  it("generates a key once, readable by this user only, and keeps returning it", () => {
    const file = join(dir, "data", "secrets-key");
    const first = keptSecretsKey(file);
    expect(first).toHaveLength(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "data")).mode & 0o777).toBe(0o700);
    expect(keptSecretsKey(file).equals(first)).toBe(true);
    expect(readdirSync(join(dir, "data"))).toEqual(["secrets-key"]);
  });

  it("refuses a kept file that holds no key, saying what losing it means", () => {
    const file = join(dir, "secrets-key");
    writeFileSync(file, "not a key\n");
    expect(() => keptSecretsKey(file)).toThrow(
      /holds no usable secrets key .*restore it from a backup, or set SECRETS_KEY/,
    );
  });
});
