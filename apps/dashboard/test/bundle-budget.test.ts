import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkJsBudget, JS_BUDGET_GZIP_BYTES } from "../build/bundle-budget.js";

const dist = fileURLToPath(new URL("../dist/assets/", import.meta.url));

describe("the bundle's budget", () => {
  it("holds for the built dashboard: its JavaScript is at most 300 KB gzipped", () => {
    const files = readdirSync(dist).map((name) => ({
      fileName: name,
      bytes: readFileSync(join(dist, name)),
    }));
    expect(files.some((file) => file.fileName.endsWith(".js"))).toBe(true);
    expect(checkJsBudget(files)).toBeLessThanOrEqual(JS_BUDGET_GZIP_BYTES);
  });

  it("fails the build past it, naming the files, and counts JavaScript only", () => {
    // Random bytes do not compress: 400 KB of them stay about 400 KB gzipped.
    const heavy = { fileName: "assets/index.js", bytes: randomBytes(400 * 1024) };
    expect(() => checkJsBudget([heavy])).toThrow(
      /^the dashboard's JavaScript is \d+ bytes gzipped, past its budget of 307200 \(assets\/index\.js \d+ B\)/,
    );
    const picture = { fileName: "assets/poster.png", bytes: randomBytes(400 * 1024) };
    expect(checkJsBudget([picture])).toBe(0);
  });
});
