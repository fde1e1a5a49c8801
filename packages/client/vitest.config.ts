import { defineConfig } from "vitest/config";

// The client's tests run once, against a test server on SQLite: what they test does not depend on
// the server's database, whose own suite runs on both (docs/development.md). TEST_QUICK=1
// (`npm run test:quick`) leaves out the test that packs and installs the package from the registry.
const quick = process.env.TEST_QUICK === "1";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    exclude: quick
      ? ["**/node_modules/**", "test/installed-package.test.ts"]
      : ["**/node_modules/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
