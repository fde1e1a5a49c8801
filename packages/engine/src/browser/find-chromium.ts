import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";

/** Where Chromium is looked for when CHROMIUM_PATH is not set, in order. */
export const CHROMIUM_LOCATIONS: readonly string[] = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome-stable",
  "/usr/bin/google-chrome",
];

/** Names looked up on PATH after the fixed locations. */
export const CHROMIUM_COMMANDS: readonly string[] = [
  "chromium",
  "chromium-browser",
  "google-chrome",
];

const HOW_TO_FIX =
  "Install Debian's chromium package (apt-get install chromium) or set CHROMIUM_PATH to a Chromium or Chrome executable.";

/** No usable Chromium: the message says where it was looked for and how to fix that. */
export class ChromiumNotFound extends Error {
  override readonly name = "ChromiumNotFound";
}

/** What findChromium reads; the caller passes its configuration (or `process.env`). */
export interface ChromiumEnv {
  /** An explicit executable; when set, nothing else is tried. */
  CHROMIUM_PATH?: string;
  /** Searched for the commands in CHROMIUM_COMMANDS; not searched when absent. */
  PATH?: string;
}

/**
 * The Chromium executable to launch: CHROMIUM_PATH when set, else the first of
 * `locations` that exists, else the first of CHROMIUM_COMMANDS on PATH.
 * Throws ChromiumNotFound when there is none.
 */
export function findChromium(
  env: ChromiumEnv,
  locations: readonly string[] = CHROMIUM_LOCATIONS,
): string {
  const explicit = env.CHROMIUM_PATH;
  if (explicit !== undefined && explicit !== "") {
    const problem = executableProblem(explicit);
    if (problem === undefined) return explicit;
    throw new ChromiumNotFound(
      `CHROMIUM_PATH is ${explicit}, which ${problem}. Set CHROMIUM_PATH to a Chromium or Chrome executable, or unset it to use the system Chromium (Debian's chromium package).`,
    );
  }
  const directories = (env.PATH ?? "").split(delimiter).filter((directory) => directory !== "");
  const onPath = CHROMIUM_COMMANDS.flatMap((command) =>
    directories.map((directory) => join(directory, command)),
  );
  const found = [...locations, ...onPath].find((path) => executableProblem(path) === undefined);
  if (found !== undefined) return found;
  const looked = [
    "CHROMIUM_PATH is not set",
    ...(locations.length === 0 ? [] : [`looked at ${locations.join(", ")}`]),
    directories.length === 0
      ? "PATH was not searched (not set)"
      : `${CHROMIUM_COMMANDS.join(", ")} on PATH (${directories.join(delimiter)})`,
  ];
  throw new ChromiumNotFound(`Chromium was not found: ${looked.join("; ")}. ${HOW_TO_FIX}`);
}

/** Why `path` cannot be run, or undefined when it can. */
function executableProblem(path: string): string | undefined {
  try {
    if (!statSync(path).isFile()) return "is not a file";
  } catch {
    return "does not exist";
  }
  try {
    accessSync(path, constants.X_OK);
    return undefined;
  } catch {
    return "is not executable";
  }
}
