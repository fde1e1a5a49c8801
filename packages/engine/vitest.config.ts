import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // A guard against a hung test, not a speed target: the browser tests launch Chromium, which
    // on a loaded 2-core machine takes seconds (vitest's 5 s default timed some out).
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
