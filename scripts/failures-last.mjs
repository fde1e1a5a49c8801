#!/usr/bin/env node
// Runs a command, its output passing through as it comes, and when it fails repeats the test
// failures vitest printed (each `FAIL` line and the lines of its error after it) and TypeScript's
// errors at the very end: the suites run one after another, and a log read from its end (a CI
// job's tail) would otherwise show only the last suite's passing tests.
//
//   node scripts/failures-last.mjs <command> [args…]
import { spawn } from "node:child_process";
import { constants } from "node:os";
import { StringDecoder } from "node:string_decoder";

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  console.error("usage: failures-last <command> [args…]");
  process.exit(2);
}

/** The lines of an error kept after its FAIL line: the message and the code it points at. */
const ERROR_LINES = 12;
/** At most this many failures are repeated. */
const MAX_FAILURES = 30;
// biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes are what it removes
const COLOUR = /\u001b\[[0-9;]*m/g;

const failures = [];

/**
 * Collects the failures of one output stream, line by line: vitest writes a failure's lines to
 * one stream, so each stream keeps its own partial line and its own failure being read.
 */
function collector() {
  const decoder = new StringDecoder("utf8");
  let partial = "";
  /** The failure whose error lines are being collected, and how many it still takes. */
  let open;
  const line = (raw) => {
    const text = raw.replace(COLOUR, "").trimEnd();
    if (/error TS\d+:/.test(text)) {
      if (failures.length < MAX_FAILURES) failures.push({ lines: [text], left: 0 });
      open = undefined;
    } else if (/\sFAIL\s/.test(text)) {
      open = failures.length < MAX_FAILURES ? { lines: [text], left: ERROR_LINES } : undefined;
      if (open) failures.push(open);
    } else if (open && open.left > 0 && text.trim() !== "") {
      open.lines.push(text);
      open.left -= 1;
    }
  };
  return {
    take(chunk) {
      const lines = (partial + decoder.write(chunk)).split("\n");
      partial = lines.pop() ?? "";
      for (const raw of lines) line(raw);
    },
    end() {
      const rest = partial + decoder.end();
      if (rest !== "") line(rest);
    },
  };
}

const child = spawn(command, args, { stdio: ["inherit", "pipe", "pipe"] });
const streams = [
  [child.stdout, process.stdout, collector()],
  [child.stderr, process.stderr, collector()],
];
for (const [from, to, collected] of streams) {
  from.on("data", (chunk) => {
    to.write(chunk);
    collected.take(chunk);
  });
}

// Ctrl-C reaches the child through the terminal's process group: this process waits for it to
// stop and reports how. A signal sent to this process alone is passed on.
process.on("SIGINT", () => {});
for (const signal of ["SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));

let startFailed = false;
child.once("error", (error) => {
  console.error(`failures-last: cannot run ${command}: ${error.message}`);
  startFailed = true;
});
child.once("close", (code, signal) => {
  for (const [, , collected] of streams) collected.end();
  const exitCode = startFailed ? 1 : (code ?? 128 + (constants.signals[signal] ?? 0));
  if (exitCode !== 0 && failures.length > 0) {
    console.log(`\n== ${failures.length} failure(s), repeated from above:`);
    for (const failure of failures) console.log(`${failure.lines.join("\n")}\n`);
  }
  process.exitCode = exitCode;
});
