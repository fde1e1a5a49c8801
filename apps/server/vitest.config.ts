import { defineConfig } from "vitest/config";
import { slowestFirst } from "./test/support/slowest-first.js";

// `npm test` runs this suite on SQLite, then runs again on PostgreSQL (TEST_FLAVOUR=postgres) only
// the files whose behaviour depends on the database, named *.db.test.ts. Every other file runs
// once: pure logic, always SQLite, always PostgreSQL (*.postgres.test.ts, whatever TEST_FLAVOUR
// says) and the files that launch Chromium (*.browser.test.ts; *.browser.db.test.ts when what
// they test depends on the database). TEST_QUICK=1 (`npm run test:quick`) leaves out the browser
// and always-PostgreSQL files. docs/development.md has the conventions.
const postgresPass = process.env.TEST_FLAVOUR === "postgres";
const quick = process.env.TEST_QUICK === "1";

export default defineConfig({
  test: {
    include: postgresPass
      ? ["src/**/*.db.test.ts", "test/**/*.db.test.ts"]
      : ["src/**/*.test.ts", "test/**/*.test.ts"],
    exclude: [
      "**/node_modules/**",
      ...(quick
        ? ["**/*.browser.test.ts", "**/*.browser.db.test.ts", "**/*.postgres.test.ts"]
        : []),
    ],
    // vitest's default on 2 cores is one file at a time; the files mostly wait (on servers,
    // worker processes, Chromium, timers) rather than compute. `--maxWorkers=N` overrides it.
    maxWorkers: 3,
    // The longest files (docs/development.md), so that none of them starts last.
    sequence: {
      sequencer: slowestFirst([
        "spec-fuzz.db.test.ts",
        "at-most-once.browser.db.test.ts",
        "browser-runs.browser.test.ts",
        "draining-shutdown.db.test.ts",
        "worker-processes.db.test.ts",
        "scale-out.postgres.test.ts",
        "cli.browser.test.ts",
        "webhook-restart.db.test.ts",
        "terminal-is-final.browser.db.test.ts",
        "pause-and-ask.browser.db.test.ts",
      ]),
    },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
