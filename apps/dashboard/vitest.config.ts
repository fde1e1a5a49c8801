import { defineConfig } from "vitest/config";

// Two kinds of tests, one file at a time (the Chromium tests share one browser and one server):
// - components: the small components and hooks beside their source (src/**/*.test.tsx), rendered
//   by React into happy-dom, with the API client given a fetch that answers as the server would;
//   `npm run test:quick` runs these only;
// - chromium: the dashboard in real Chromium against a real server with a worker, the tests in
//   order (test/*.browser.test.ts). `npm test` runs both, once, on SQLite.
export default defineConfig({
  test: {
    fileParallelism: false,
    projects: [
      {
        test: {
          name: "components",
          include: ["src/**/*.test.{ts,tsx}"],
          environment: "happy-dom",
          // One document for all the files rather than one each, whose making was most of their
          // time: each test unmounts what it rendered, and one that reads the address sets it.
          isolate: false,
        },
      },
      {
        test: {
          name: "chromium",
          include: ["test/**/*.test.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
