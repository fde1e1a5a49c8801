/** The most writes one commit holds (see GroupCommit's constructor). */
export const GROUP_COMMIT_MAX = 200;

interface Queued<W> {
  write: W;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Commits the writes queued within one turn of the event loop together, by `commit`: one
 * transaction on SQLite, one statement on PostgreSQL. On SQLite a commit waits for the disk
 * (`synchronous = FULL`) on the thread that serves every request, and on PostgreSQL a statement
 * is a round trip, so the runs of requests that arrive together share one
 * (docs/decisions/0011-group-commit-for-new-runs.md). Each write still settles only once it is
 * committed, so what the API acknowledges is stored. Should the shared commit fail, each write
 * is tried again on its own: one bad write fails alone. Written here rather than taken from a
 * library: it is a queue of one turn in front of the driver, which no library knows.
 */
export class GroupCommit<W> {
  private queue: Queued<W>[] = [];

  /**
   * `maxGroup` bounds what one commit holds: a turn that queued more is committed in groups of
   * at most that many, one after the other. PostgreSQL refuses a statement with more than 65,535
   * parameters (a new run has about twenty), and a group of a few hundred gains nothing more.
   */
  constructor(
    private readonly commit: (writes: readonly W[]) => Promise<void>,
    private readonly maxGroup = GROUP_COMMIT_MAX,
  ) {}

  /** Commits `write` with whatever else was queued in this turn. */
  write(write: W): Promise<void> {
    return new Promise((resolve, reject) => {
      // After the turn's I/O: the requests read in it have all queued their writes by then.
      if (this.queue.length === 0) setImmediate(() => void this.commitQueued());
      this.queue.push({ write, resolve, reject });
    });
  }

  private async commitQueued(): Promise<void> {
    const queued = this.queue;
    this.queue = [];
    for (let start = 0; start < queued.length; start += this.maxGroup) {
      await this.commitGroup(queued.slice(start, start + this.maxGroup));
    }
  }

  private async commitGroup(group: Queued<W>[]): Promise<void> {
    try {
      await this.commit(group.map((queued) => queued.write));
    } catch (error) {
      if (group.length === 1) {
        group[0]?.reject(error);
        return;
      }
      for (const queued of group) {
        await this.commit([queued.write]).then(queued.resolve, queued.reject);
      }
      return;
    }
    for (const queued of group) queued.resolve();
  }
}
