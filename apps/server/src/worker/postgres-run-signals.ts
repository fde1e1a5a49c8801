import pg from "pg";
import type { Logger } from "pino";
import type { Database } from "../db/database.js";
import { RUN_SIGNAL_CHANNEL, signalOf } from "../db/runs/signal.js";
import type { RunSignals } from "./run-signals.js";
import { SignalListeners } from "./signal-listeners.js";

/**
 * The channel of what wakes live streams (`stream:run:<run id>` and `stream:changes`, sent by
 * the triggers of migration 20261128000000_stream_notify_channel): only processes that serve
 * HTTP listen on it, as every event every run writes is told there.
 */
const STREAM_CHANNEL = "skillrun_streams";
const STREAM_PREFIX = "stream:";

// After a lost connection, how long to wait before listening again. Workers poll meanwhile.
const RECONNECT_MS = 1000;

/**
 * Run signals across processes over PostgreSQL LISTEN/NOTIFY: a run queued or cancelled through
 * any server wakes the workers of every process on the database at once. The NOTIFY is sent in
 * the transaction that makes the change (db/runs/commit.ts), so PostgreSQL delivers it exactly at
 * commit (and not at all on a rollback). One dedicated connection only listens; PostgreSQL
 * delivers a notification to every listening session, this one included, so local subscribers
 * hear their own process's signals the same way.
 */
export class PostgresRunSignals implements RunSignals {
  private readonly listeners = new SignalListeners();
  private client: pg.Client | undefined;
  private closed = false;

  private constructor(
    private readonly url: string,
    private readonly logger: Logger,
    /** Whether this process serves live streams, and so listens for what wakes them. */
    private readonly streams: boolean,
  ) {}

  /**
   * Connects and listens (with `streams`, for what wakes live streams too); rejects when the
   * database cannot be reached.
   */
  static async connect(
    db: Pick<Database, "url">,
    logger: Logger,
    options: { streams: boolean },
  ): Promise<PostgresRunSignals> {
    const signals = new PostgresRunSignals(db.url, logger, options.streams);
    await signals.listen();
    return signals;
  }

  // The commit's NOTIFY reaches this process's listening connection like any other's.
  committed(): void {}

  onQueued(listener: () => void): () => void {
    return this.listeners.onQueued(listener);
  }

  onCancelled(listener: (runId: string) => void): () => void {
    return this.listeners.onCancelled(listener);
  }

  onStreamWake(listener: (key: string) => void): () => void {
    return this.listeners.onStreamWake(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.client?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on("notification", (message) => {
      const payload = message.payload ?? "";
      // On either channel: the triggers of a database not yet migrated send them on the runs'.
      if (payload.startsWith(STREAM_PREFIX)) {
        this.listeners.wakeStreams(payload.slice(STREAM_PREFIX.length));
        return;
      }
      const signal = signalOf(payload);
      if (signal !== undefined) this.listeners.deliver(signal);
    });
    client.on("error", (error) => {
      this.logger.warn({ err: error }, "lost the run signal connection; listening again");
      this.reconnect(client);
    });
    client.on("end", () => this.reconnect(client));
    await client.connect();
    await client.query(`LISTEN ${RUN_SIGNAL_CHANNEL}`);
    if (this.streams) await client.query(`LISTEN ${STREAM_CHANNEL}`);
    this.client = client;
  }

  /** Drops a lost connection (once: `error` and `end` may both report it) and listens anew. */
  private reconnect(lost: pg.Client): void {
    if (this.closed || this.client !== lost) return;
    this.client = undefined;
    this.listenLater();
  }

  private listenLater(): void {
    setTimeout(() => {
      if (this.closed) return;
      this.listen().catch((error: unknown) => {
        this.logger.warn({ err: error }, "could not listen for run signals; workers keep polling");
        this.listenLater();
      });
    }, RECONNECT_MS);
  }
}
