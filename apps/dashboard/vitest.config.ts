import { defineConfig } from "vitest/config";

// The dashboard in real Chromium against a real server with a worker: one browser, one server,
// the tests in order (they share both). `npm test` runs it in its first pass (SQLite) only.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
