import { messageOf } from "../error-message.js";
import { firstLine, withoutApiName } from "./error-text.js";

/** Chromium's own error output quoted in a launch failure: its last lines say what went wrong. */
const QUOTED_LINES = 3;
const QUOTED_LINE_CHARS = 200;

/**
 * A launch failure in a few words: Playwright's message holds the whole command line and log, of
 * which only how the process exited and its last error lines matter.
 */
export function launchFailure(error: unknown, executablePath: string): Error {
  // Playwright dims its call log with terminal colour codes when it thinks a terminal reads it.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape is what is removed
  const message = messageOf(error).replace(/\u001b\[\d+m/g, "");
  // The storage the context starts with (a browser profile's, a checkpoint's) holds a cookie
  // Chromium does not take: Playwright says only that, and the cookie is not named here either.
  if (/Error setting storage state/.test(message)) {
    return new Error(
      "could not start the browser with its stored state (a browser profile's or a checkpoint's): Chromium refused one of its cookies",
    );
  }
  const exit = /<process did exit: exitCode=(\S+), signal=(\S+)>/.exec(message);
  // Its error lines, from the browser's log and from the call log (which may repeat them).
  const lines = [...message.matchAll(/^(?:\s*- )?\[pid=\d+\]\[err\] (.+)$/gm)]
    .map((match) => (match[1] ?? "").trim().slice(0, QUOTED_LINE_CHARS))
    .filter((line) => line !== "");
  const said = [...new Set(lines)].slice(-QUOTED_LINES);
  const parts = [
    exit === null
      ? withoutApiName(firstLine(error))
      : exit[2] !== "null"
        ? `it was killed by ${exit[2]}`
        : `it exited with code ${exit[1]}`,
    ...(said.length === 0 ? [] : [`it said: ${said.join(" / ")}`]),
  ];
  return new Error(`could not start Chromium (${executablePath}): ${parts.join("; ")}`);
}
