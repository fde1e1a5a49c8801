import { join } from "node:path";
import type { RunFile } from "@skillrun/engine";
import type { Logger } from "pino";
import type { ServerLink } from "./server-link.js";

/**
 * Sends what an agent's runs store to the server, which keeps them as a worker's: each run file
 * as the engine finishes it (in order, one at a time per run), and the video once the browser
 * closed. A file the server refuses (over a quota, the run no longer held) is logged and the run
 * goes on; the server's step log says why when it ends the run for it.
 */
export class RunFiles {
  private readonly queues = new Map<string, Promise<void>>();

  constructor(
    private readonly server: ServerLink,
    private readonly logger: Logger,
  ) {}

  /** Queues the upload of a run file, kept in the run's folder `dir`. */
  file(runId: string, dir: string, file: RunFile): void {
    const previous = this.queues.get(runId) ?? Promise.resolve();
    const next = previous.then(() =>
      this.server
        .put(
          runId,
          `files/${encodeURIComponent(file.name)}`,
          join(dir, file.name),
          file.content_type,
        )
        .catch((error: unknown) =>
          this.logger.warn({ err: error, runId, file: file.name }, "a run file was not sent"),
        ),
    );
    this.queues.set(runId, next);
  }

  /** Settles once every file of the run queued so far was sent (or refused). */
  async flushed(runId: string): Promise<void> {
    await this.queues.get(runId);
    this.queues.delete(runId);
  }

  /** Sends the run's video; true when the server kept it. */
  async video(runId: string, path: string): Promise<boolean> {
    try {
      await this.server.put(runId, "video", path, "video/webm");
      return true;
    } catch (error) {
      this.logger.warn({ err: error, runId }, "the run's video was not sent");
      return false;
    }
  }
}
