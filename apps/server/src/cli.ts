#!/usr/bin/env node
import { runCli } from "./cli/main.js";

runCli(process.argv.slice(2)).then((code) => {
  // serve and worker keep running until a signal; the other commands end here.
  if (code !== -1) process.exitCode = code;
});
