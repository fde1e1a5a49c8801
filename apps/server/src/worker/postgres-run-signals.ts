import pg from "pg";
import type { Logger } from "pino";
import { RunSignals } from "./run-signals.js";

/** The one channel all Skillrun processes on a database listen on. */
export const RUN_SIGNAL_CHANNEL = "skillrun_runs";

// After a lost connection, how long to wait before listening again. Workers poll meanwhile.
const RECONNECT_MS = 1000;

/**
 * RunSignals across processes over PostgreSQL LISTEN/NOTIFY: a run queued or cancelled through
 * any server wakes the workers of every process on the database at once, so an idle worker
 * needs no hot polling. One dedicated connection listens and sends; PostgreSQL delivers a
 * notification to every listening session, this one included, so local subscribers hear their
 * own process's signals the same way.
 */
export class PostgresRunSignals extends RunSignals {
  private client: pg.Client | undefined;
  private closed = false;

  private constructor(
    private readonly url: string,
    private readonly logger: Logger,
  ) {
    super();
  }

  /** Connects and listens; rejects when the database cannot be reached. */
  static async connect(url: string, logger: Logger): Promise<PostgresRunSignals> {
    const signals = new PostgresRunSignals(url, logger);
    await signals.listen();
    return signals;
  }

  override queued(): void {
    this.send("queued");
  }

  override cancelled(runId: string): void {
    this.send(`cancelled:${runId}`);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.client?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on("notification", (message) => this.deliver(message.payload ?? ""));
    client.on("error", (error) => {
      this.logger.warn({ err: error }, "lost the run signal connection; listening again");
      this.reconnect(client);
    });
    client.on("end", () => this.reconnect(client));
    await client.connect();
    await client.query(`LISTEN ${RUN_SIGNAL_CHANNEL}`);
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

  private send(payload: string): void {
    const client = this.client;
    if (client === undefined) return; // Reconnecting: the workers' polling finds the run.
    client.query("SELECT pg_notify($1, $2)", [RUN_SIGNAL_CHANNEL, payload]).catch((error) => {
      this.logger.warn({ err: error, payload }, "could not send a run signal");
    });
  }

  private deliver(payload: string): void {
    if (payload === "queued") super.queued();
    else if (payload.startsWith("cancelled:")) super.cancelled(payload.slice("cancelled:".length));
  }
}
