import { defineConfig } from "vitest/config";

// Files that launch Chromium are named *.browser.test.ts; TEST_QUICK=1 (`npm run test:quick`)
// leaves them out. docs/development.md has the conventions.
const quick = process.env.TEST_QUICK === "1";

export default defineConfig({
  test: {
    // A guard against a hung test, not a speed target: the browser tests launch Chromium, which
    // on a loaded 2-core machine takes seconds (vitest's 5 s default timed some out).
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: "logic",
          exclude: ["**/node_modules/**", "**/*.browser.test.ts"],
          // Two at a time: these files compute and import, each on a core.
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      ...(quick
        ? []
        : [
            {
              extends: true,
              test: {
                name: "chromium",
                include: ["**/*.browser.test.ts"],
                exclude: ["**/node_modules/**"],
                // One at a time, after the others: with two Chromiums side by side a browser
                // step missed its 1 s limit on the 2-core build machine.
                maxWorkers: 1,
                sequence: { groupOrder: 1 },
              },
            },
          ]),
    ],
  },
});
