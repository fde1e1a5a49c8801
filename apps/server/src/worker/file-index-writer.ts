import type { RunFile } from "@skillrun/engine";
import type { Logger } from "pino";
import type { RunFileRepository } from "../db/repositories/run-files.js";

/**
 * Writes the index rows of the files a run stores, one after the other in the order the run
 * reports them, so that the files endpoints list every file of an ended run. A row that cannot
 * be written is logged; the file stays in the run's folder.
 */
export class FileIndexWriter {
  private written: Promise<void> = Promise.resolve();

  constructor(
    private readonly runFiles: RunFileRepository,
    private readonly runId: string,
    private readonly log: Logger,
  ) {}

  push(file: RunFile): void {
    this.written = this.written.then(() =>
      this.runFiles.record(this.runId, file).catch((error: unknown) => {
        this.log.error({ err: error, file: file.name }, "could not index a run file");
      }),
    );
  }

  /** Resolves once every row pushed so far is written (or its failure logged). */
  flushed(): Promise<void> {
    return this.written;
  }
}
