#!/usr/bin/env node
import { runCli } from "./cli/main.js";
import { PRIVATE_UMASK } from "./private-files.js";

// Whatever this process or its children create (SQLite's journal, ffmpeg's videos, Chromium's
// profile) is private to the service's user; see private-files.ts.
process.umask(PRIVATE_UMASK);

runCli(process.argv.slice(2)).then((code) => {
  // serve and worker keep running until a signal; the other commands end here. A failure exits
  // at once: serve may already be listening (its demo is imported after that), and an open
  // server would keep a failed command running.
  if (code === 1) process.exit(code);
  if (code !== -1) process.exitCode = code;
});
