import { defineConfig } from "vitest/config";

// The dashboard in real Chromium against a real server with a worker: one browser, one server,
// the tests in order (they share both). It runs once, on SQLite; `npm run test:quick` leaves it
// out (it has no test:quick script).
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
