#!/usr/bin/env node
import { setFlagsFromString } from "node:v8";
import { runCli } from "./cli/main.js";
import { PRIVATE_UMASK } from "./private-files.js";

// Whatever this process or its children create (SQLite's journal, ffmpeg's videos, Chromium's
// profile) is private to the service's user; see private-files.ts.
process.umask(PRIVATE_UMASK);

// Memory, both flags: docs/decisions/0014-v8-memory-flags.md. Prisma's query compiler is
// WebAssembly, compiled when the first query is made; V8's recompilation of its hot functions with
// TurboFan leaves the process larger for good. The hot path's statements go to the driver directly
// (db/direct-sql.ts), so Prisma's speed matters little; baseline code (Liftoff) it is.
setFlagsFromString("--liftoff-only");
// After each full collection V8 lets the old generation grow to up to four times what is live, and
// keeps it once the load is over. 1.5 times keeps the server within its 200 MB target under load,
// for a few more collections (a little on the API's p99, nothing on its throughput).
setFlagsFromString("--heap-growing-percent=50");

runCli(process.argv.slice(2)).then((code) => {
  // serve and worker keep running until a signal; the other commands end here. A failure exits
  // at once: serve may already be listening (its demo is imported after that), and an open
  // server would keep a failed command running.
  if (code === 1) process.exit(code);
  if (code !== -1) process.exitCode = code;
});
