import {
  chmodSync,
  closeSync,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname } from "node:path";

/**
 * What Skillrun keeps on disk (the SQLite database, the data folder, the file store, the
 * signing secret) is readable by the service's user only: folders 0700, files 0600. Modes are
 * given where Skillrun creates things; what libraries and child processes create beside them
 * (SQLite's journal, ffmpeg's videos) follows the umask the CLI sets (see cli.ts).
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** The umask the `skillrun` process runs under: nothing for the group or others. */
export const PRIVATE_UMASK = 0o077;

/** Creates `dir` and any missing parents as private folders; folders that exist are left as they are. */
export function makePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/**
 * Makes the SQLite database `file` private before SQLite opens it: created empty with mode 0600
 * when absent (SQLite gives its WAL and shared-memory files the database's mode), narrowed to 0600
 * with its WAL and shared-memory files when they exist (a database made by an older version).
 */
export function makePrivateDatabaseFile(file: string): void {
  closeSync(openSync(file, "a", PRIVATE_FILE_MODE));
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    if (existsSync(path)) chmodSync(path, PRIVATE_FILE_MODE);
  }
}

/**
 * The trimmed text of `file`, a small private file made once: read when it exists, else written
 * with `make()` (and a newline) readable by this user only, its folder private too. Two
 * processes starting at once agree on one content.
 */
export function keptPrivateFile(file: string, make: () => string): string {
  makePrivateDir(dirname(file));
  const draft = `${file}.${process.pid}.tmp`;
  writeFileSync(draft, `${make()}\n`, { mode: PRIVATE_FILE_MODE });
  try {
    // link() publishes the whole file at once and fails when one exists: the first writer wins.
    linkSync(draft, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    rmSync(draft, { force: true });
  }
  return readFileSync(file, "utf8").trim();
}
