import { mkdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { PRIVATE_DIR_MODE } from "../private-files.js";

// Run ids are `run_<uuid>`; anything else never names a file, so no id can reach outside the folder.
const SAFE_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The video store: a folder holding one `<run id>.webm` per recorded run, and the run's
 * screenshots beside it. A run has a video exactly when its file exists; the recorder writes it
 * (completing it under another name first), the API only reads it.
 */
export class VideoStore {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = resolve(dir);
  }

  /** The file of the run's video, or null while it has none. */
  async find(runId: string): Promise<string | null> {
    if (!SAFE_ID.test(runId)) return null;
    const file = join(this.dir, `${runId}.webm`);
    try {
      return (await stat(file)).isFile() ? file : null;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return null;
      throw error;
    }
  }

  /** The folder that keeps the run's screenshots (`<run id>-screenshots`), created when written. */
  screenshotDirOf(runId: string): string {
    if (!SAFE_ID.test(runId)) throw new Error(`not a run id: ${JSON.stringify(runId)}`);
    return join(this.dir, `${runId}-screenshots`);
  }

  /** Where the run's video is to be written; creates the store's folder when needed. */
  async pathForWriting(runId: string): Promise<string> {
    if (!SAFE_ID.test(runId)) throw new Error(`not a run id: ${JSON.stringify(runId)}`);
    await mkdir(this.dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    return join(this.dir, `${runId}.webm`);
  }
}
