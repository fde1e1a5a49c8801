import { defineConfig } from "vitest/config";

// `npm test` runs this suite twice, once per database flavour (TEST_FLAVOUR). A file named
// *.once.test.ts does not depend on the flavour (pure logic, or always SQLite, or always
// PostgreSQL): it runs in the first pass only.
const secondPass = process.env.TEST_FLAVOUR === "postgres";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    exclude: secondPass ? ["**/node_modules/**", "**/*.once.test.ts"] : ["**/node_modules/**"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
