import { statSync } from "node:fs";
import { mkdir, rename } from "node:fs/promises";
import { join, resolve } from "node:path";
import { isRunFileName } from "@skillrun/engine";
import { FILE_ID_PATTERN } from "../domain/ids.js";
import { PRIVATE_DIR_MODE } from "../private-files.js";

// Run ids are `run_<uuid>`; anything else never names a file, so no id can reach outside the folder.
const SAFE_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The file store: one folder holding one `<run id>.webm` per recorded run, each run's files in
 * `<run id>-files/`, and the files uploaded for `file` inputs in `uploads/<file id>`. A run has a
 * video exactly when its file exists; the recorder writes it (completing it under another name
 * first), the API only reads it. Those names hold the run's last attempt: what an earlier
 * attempt left is kept beside them as `<run id>-attempt-<n>.webm` and `<run id>-attempt-<n>-files/`.
 */
export class FileStore {
  readonly dir: string;
  /** The folder of uploaded files. */
  readonly uploadsDir: string;

  constructor(dir: string) {
    this.dir = resolve(dir);
    this.uploadsDir = join(this.dir, "uploads");
  }

  /** The file of the run's video, or null while it has none. */
  find(runId: string): string | null {
    if (!SAFE_ID.test(runId)) return null;
    const file = join(this.dir, `${runId}.webm`);
    // Synchronous and without an error for a missing file: the store is a local folder, and every
    // run of every answer is looked up here, most of them without a video. The promise API would
    // build an ENOENT error, stack trace included, for each (a tenth of a page of the run list),
    // and a promise per run of a page cost more than the stat.
    try {
      return statSync(file, { throwIfNoEntry: false })?.isFile() ? file : null;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOTDIR") return null;
      throw error;
    }
  }

  /**
   * The folder that keeps the run's files (`<run id>-files`: screenshots, downloads, …), created
   * when the first is written.
   */
  filesDirOf(runId: string): string {
    if (!SAFE_ID.test(runId)) throw new Error(`not a run id: ${JSON.stringify(runId)}`);
    return join(this.dir, `${runId}-files`);
  }

  /**
   * Where the run's file named `name` is, or null for a name no run file can have: only a
   * sanitised name (no separator, no leading dot) is joined, so no name reaches outside the
   * run's folder.
   */
  runFilePathOf(runId: string, name: string): string | null {
    if (!SAFE_ID.test(runId) || !isRunFileName(name)) return null;
    return join(this.filesDirOf(runId), name);
  }

  /** Where the upload `fileId` is kept; throws for what is not an upload id. */
  uploadPathOf(fileId: string): string {
    if (!FILE_ID_PATTERN.test(fileId)) throw new Error(`not a file id: ${JSON.stringify(fileId)}`);
    return join(this.uploadsDir, fileId);
  }

  /**
   * Moves what an earlier attempt of the run left (its video, complete or not, and its folder of
   * files) aside to `<run id>-attempt-<n>…`, n the first number not taken, so a new attempt
   * overwrites nothing of it. Returns that prefix's file name, or null when there was nothing.
   */
  async keepEarlierAttempt(runId: string): Promise<string | null> {
    if (!SAFE_ID.test(runId)) throw new Error(`not a run id: ${JSON.stringify(runId)}`);
    const kinds = [".webm", ".webm.part", "-files"];
    const left = kinds.filter((kind) => exists(join(this.dir, `${runId}${kind}`)));
    if (left.length === 0) return null;
    for (let n = 1; ; n += 1) {
      const prefix = `${runId}-attempt-${n}`;
      if (kinds.some((kind) => exists(join(this.dir, prefix + kind)))) continue;
      for (const kind of left)
        await rename(join(this.dir, runId + kind), join(this.dir, prefix + kind));
      return prefix;
    }
  }

  /**
   * Sets aside the video an earlier attempt of a run left (`<run>-attempt-<n>.webm`), keeping its
   * files where they are, for a run that goes on from a checkpoint; the name used, or null.
   */
  async keepEarlierVideo(runId: string): Promise<string | null> {
    if (!SAFE_ID.test(runId)) throw new Error(`not a run id: ${JSON.stringify(runId)}`);
    const kinds = [".webm", ".webm.part"];
    const left = kinds.filter((kind) => exists(join(this.dir, `${runId}${kind}`)));
    if (left.length === 0) return null;
    for (let n = 1; ; n += 1) {
      const prefix = `${runId}-attempt-${n}`;
      if ([...kinds, "-files"].some((kind) => exists(join(this.dir, prefix + kind)))) continue;
      for (const kind of left)
        await rename(join(this.dir, runId + kind), join(this.dir, prefix + kind));
      return prefix;
    }
  }

  /** Where the run's video is to be written; creates the store's folder when needed. */
  async pathForWriting(runId: string): Promise<string> {
    if (!SAFE_ID.test(runId)) throw new Error(`not a run id: ${JSON.stringify(runId)}`);
    // Every run passes here: a stat is cheaper than a recursive mkdir of a folder that exists.
    if (!exists(this.dir)) await mkdir(this.dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    return join(this.dir, `${runId}.webm`);
  }
}

// Synchronous and without an error for a missing file: every run asks for three files that are
// almost never there, and an ENOENT error with its stack cost more than the rest of a trivial
// run's bookkeeping (docs/decisions/0016-no-errors-for-missing-files.md). A stat of a local
// folder does not block for long.
function exists(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false }) !== undefined;
}
