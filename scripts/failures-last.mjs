#!/usr/bin/env node
// Runs a command, its output passing through as it comes, and when it fails repeats the test
// failures vitest printed (each `FAIL` line and the lines of its error after it) and TypeScript's
// errors at the very end:
// the suites run one after another, and a log read from its end (a CI job's tail) would
// otherwise show only the last suite's passing tests.
//
//   node scripts/failures-last.mjs <command> [args…]
import { spawn } from "node:child_process";

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
/** The failure whose error lines are being collected, and how many it still takes. */
let open;
let partial = "";

function take(text) {
  const lines = (partial + text).split("\n");
  partial = lines.pop() ?? "";
  for (const raw of lines) {
    const line = raw.replace(COLOUR, "").trimEnd();
    if (/error TS\d+:/.test(line)) {
      if (failures.length < MAX_FAILURES) failures.push({ lines: [line], left: 0 });
      open = undefined;
    } else if (/\sFAIL\s/.test(line)) {
      open = failures.length < MAX_FAILURES ? { lines: [line], left: ERROR_LINES } : undefined;
      if (open) failures.push(open);
    } else if (open && open.left > 0 && line.trim() !== "") {
      open.lines.push(line);
      open.left -= 1;
    }
  }
}

const child = spawn(command, args, { stdio: ["inherit", "pipe", "pipe"] });
for (const [from, to] of [
  [child.stdout, process.stdout],
  [child.stderr, process.stderr],
]) {
  from.on("data", (chunk) => {
    to.write(chunk);
    take(chunk.toString("utf8"));
  });
}
child.once("error", (error) => {
  console.error(`failures-last: cannot run ${command}: ${error.message}`);
  process.exit(1);
});
child.once("close", (code, signal) => {
  const exitCode = code ?? (signal ? 128 : 1);
  if (exitCode !== 0 && failures.length > 0) {
    console.log(`\n== ${failures.length} test failure(s), repeated from above:`);
    for (const failure of failures) console.log(`${failure.lines.join("\n")}\n`);
  }
  process.exit(exitCode);
});
