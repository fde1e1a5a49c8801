import { defineConfig } from "vitest/config";

// Files that launch Chromium are named *.browser.test.ts; TEST_QUICK=1 (`npm run test:quick`)
// leaves them out. docs/development.md has the conventions.
const quick = process.env.TEST_QUICK === "1";

export default defineConfig({
  test: {
    exclude: quick ? ["**/node_modules/**", "**/*.browser.test.ts"] : ["**/node_modules/**"],
    // A guard against a hung test, not a speed target: the browser tests launch Chromium, which
    // on a loaded 2-core machine takes seconds (vitest's 5 s default timed some out).
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
