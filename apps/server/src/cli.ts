#!/usr/bin/env node
import { setFlagsFromString } from "node:v8";
import { runCli } from "./cli/main.js";
import { PRIVATE_UMASK } from "./private-files.js";

// Whatever this process or its children create (SQLite's journal, ffmpeg's videos, Chromium's
// profile) is private to the service's user; see private-files.ts.
process.umask(PRIVATE_UMASK);

// Prisma's query compiler is WebAssembly (3 MB), compiled when the first query is made. V8 first
// compiles it with its baseline compiler, Liftoff, then recompiles the hot functions with
// TurboFan, whose compilation leaves the process about 70 MB larger for good (BENCHMARKS.md, "The
// request path and memory"). The hot path's statements go to the driver directly
// (db/direct-sql.ts), so Prisma's speed matters little; baseline code it is.
setFlagsFromString("--liftoff-only");
// After each full collection V8 lets the old generation grow to up to four times what is live
// before the next: under the API's load 110 MB held for 34 MB live, which it kept once the load
// was over. 1.5 times keeps the server within 200 MB under load for a few more collections (the
// p99 of GET /run/{id} 19 -> 23 ms, its throughput unchanged; BENCHMARKS.md, "The request path
// and memory").
setFlagsFromString("--heap-growing-percent=50");

runCli(process.argv.slice(2)).then((code) => {
  // serve and worker keep running until a signal; the other commands end here. A failure exits
  // at once: serve may already be listening (its demo is imported after that), and an open
  // server would keep a failed command running.
  if (code === 1) process.exit(code);
  if (code !== -1) process.exitCode = code;
});
