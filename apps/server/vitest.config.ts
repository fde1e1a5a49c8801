import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import { slowestFirst } from "./test/support/slowest-first.js";

// The suite runs on each database flavour TEST_FLAVOURS names (`sqlite,postgres` in `npm test`),
// else on TEST_FLAVOUR's alone (SQLite by default), one vitest project per flavour. On SQLite it
// runs every file; on PostgreSQL only the files whose behaviour depends on the database, named
// *.db.test.ts. Every other file runs once: pure logic, always SQLite, always PostgreSQL
// (*.postgres.test.ts, whatever the flavour) and the files that launch Chromium
// (*.browser.test.ts; *.browser.db.test.ts when what they test depends on the database).
// TEST_QUICK=1 (`npm run test:quick`) leaves out the browser and always-PostgreSQL files.
// docs/development.md has the conventions.
const flavours = (process.env.TEST_FLAVOURS ?? process.env.TEST_FLAVOUR ?? "sqlite").split(",");
const quick = process.env.TEST_QUICK === "1";

function project(flavour: string): TestProjectInlineConfiguration {
  if (flavour !== "sqlite" && flavour !== "postgres") {
    throw new Error(`TEST_FLAVOURS holds sqlite and postgres only, not "${flavour}"`);
  }
  return {
    extends: true,
    test: {
      name: flavour,
      // What the test code reads (testFlavour()) in this project's files.
      env: { TEST_FLAVOUR: flavour },
      include:
        flavour === "postgres"
          ? ["src/**/*.db.test.ts", "test/**/*.db.test.ts"]
          : ["src/**/*.test.ts", "test/**/*.test.ts"],
    },
  };
}

export default defineConfig({
  test: {
    projects: flavours.map(project),
    exclude: [
      "**/node_modules/**",
      ...(quick
        ? ["**/*.browser.test.ts", "**/*.browser.db.test.ts", "**/*.postgres.test.ts"]
        : []),
    ],
    // vitest's default on 2 cores is one file at a time; the files mostly wait (on servers,
    // worker processes, Chromium, timers) rather than compute. Two at once leaves the tests that
    // time a second (a cancel, a lease) the CPU they need on a slow machine (docs/development.md).
    // `--maxWorkers=N` overrides it. The projects share these workers: both flavours' files in
    // one queue, so neither pass waits for the other's last file.
    maxWorkers: 2,
    // The longest files (docs/development.md), so that none of them starts last.
    sequence: {
      sequencer: slowestFirst([
        "spec-fuzz.db.test.ts",
        "durable-browser.browser.db.test.ts",
        "agent-browser.browser.db.test.ts",
        "at-most-once.browser.db.test.ts",
        "parking.db.test.ts",
        "agent-runs.db.test.ts",
        "tracing-off.test.ts",
        "cli.browser.test.ts",
        "draining-shutdown.db.test.ts",
        "backoffice-saved-login.browser.db.test.ts",
        "browser-runs.browser.test.ts",
        "worker-processes.db.test.ts",
        "pause-and-ask.browser.db.test.ts",
        "import-skills.db.test.ts",
        "terminal-is-final.browser.db.test.ts",
        "fair-queue.db.test.ts",
      ]),
    },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
