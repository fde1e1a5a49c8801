import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { RunFile } from "@skillrun/engine";
import type { Logger } from "pino";
import type { RunFileRepository } from "../db/repositories/run-files.js";

/**
 * Writes the index rows of the files a run stores, one after the other in the order the run
 * reports them, so that the files endpoints list every file of an ended run. A row that cannot
 * be written is logged; the file stays in the run's folder. A file that would take the run's
 * owner past OWNER_STORAGE_MAX_BYTES is not indexed and is removed from the folder: `refused`
 * names it, `onRefused` is told (the run is stopped at once), and the run ends in reset saying so.
 */
export class FileIndexWriter {
  private written: Promise<void> = Promise.resolve();
  /** The files refused for the owner's storage quota, by name. */
  readonly refused: string[] = [];

  constructor(
    private readonly runFiles: RunFileRepository,
    private readonly runId: string,
    private readonly dir: string,
    private readonly log: Logger,
    private readonly onRefused: (name: string) => void = () => undefined,
  ) {}

  push(file: RunFile): void {
    this.written = this.written.then(() => this.index(file));
  }

  /** Resolves once every row pushed so far is written (or its failure logged). */
  flushed(): Promise<void> {
    return this.written;
  }

  private async index(file: RunFile): Promise<void> {
    try {
      if (await this.runFiles.record(this.runId, file)) return;
      this.refused.push(file.name);
      this.onRefused(file.name);
      // Not counted, so not kept: no bytes on disk that no row accounts for.
      await rm(join(this.dir, file.name), { force: true });
    } catch (error) {
      this.log.error({ err: error, file: file.name }, "could not index a run file");
    }
  }
}
