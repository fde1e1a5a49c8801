import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { keptSigningSecret } from "./signing-secret.js";

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "skillrun-secret-"));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("keptSigningSecret", () => {
  it("generates a secret once, readable by this user only, and keeps returning it", () => {
    const file = join(dir, "data", "video-signing-secret");
    const first = keptSigningSecret(file);
    expect(first).toMatch(/^[\w-]{43}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(keptSigningSecret(file)).toBe(first);
    expect(readdirSync(join(dir, "data"))).toEqual(["video-signing-secret"]);
  });

  it("refuses a kept file that holds no usable secret", () => {
    const file = join(dir, "video-signing-secret");
    writeFileSync(file, "short\n");
    expect(() => keptSigningSecret(file)).toThrow(/delete it .* or set VIDEO_SIGNING_SECRET/);
  });
});
