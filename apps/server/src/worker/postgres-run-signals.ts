import pg from "pg";
import type { Logger } from "pino";
import type { Database, PrismaClient } from "../db/database.js";
import type { DirectSql, SqlStatement } from "../db/direct-sql.js";
import { GroupCommit } from "../db/group-commit.js";
import type { ChangeClient, RunSignal, RunSignals } from "./run-signals.js";
import { SignalListeners } from "./signal-listeners.js";

interface InsertWrite {
  statements: readonly SqlStatement[];
  signal: RunSignal;
}

/** The channel all Skillrun processes on a database listen on: runs queued and cancelled. */
export const RUN_SIGNAL_CHANNEL = "skillrun_runs";

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
 * the transaction that makes the change, so PostgreSQL delivers it exactly at commit (and not at
 * all on a rollback). One dedicated connection only listens; PostgreSQL delivers a notification
 * to every listening session, this one included, so local subscribers hear their own process's
 * signals the same way.
 */
export class PostgresRunSignals implements RunSignals {
  private readonly listeners = new SignalListeners();
  /** New runs of concurrent requests share a statement (see GroupCommit). */
  private readonly inserts = new GroupCommit<InsertWrite>(async (writes) => {
    await this.insertTogether(writes);
  });
  private client: pg.Client | undefined;
  private closed = false;

  private constructor(
    private readonly prisma: PrismaClient,
    private readonly direct: DirectSql,
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
    db: Pick<Database, "prisma" | "direct" | "url">,
    logger: Logger,
    options: { streams: boolean },
  ): Promise<PostgresRunSignals> {
    const signals = new PostgresRunSignals(db.prisma, db.direct, db.url, logger, options.streams);
    await signals.listen();
    return signals;
  }

  change<T>(
    make: (db: ChangeClient) => Promise<{ value: T; signal?: RunSignal | undefined }>,
  ): Promise<T> {
    return this.prisma.$transaction(async (tx) => {
      const { value, signal } = await make(tx);
      if (signal !== undefined) {
        await tx.$executeRaw`SELECT pg_notify(${RUN_SIGNAL_CHANNEL}, ${payloadOf(signal)})`;
      }
      return value;
    });
  }

  insert(statements: readonly SqlStatement[], signal: RunSignal): Promise<void> {
    return this.inserts.write({ statements, signal });
  }

  // `WITH i0 AS (INSERT …), i1 AS (INSERT …) SELECT pg_notify(…)`, the INSERTs of every write
  // queued together: PostgreSQL executes every INSERT of a WITH whether or not the query reads
  // it, and a statement commits as a whole.
  private insertTogether(writes: readonly InsertWrite[]): Promise<unknown> {
    const statements = writes.flatMap((write) => write.statements);
    const inserts = statements.map(({ sql }, i) => `i${i} AS (${sql})`).join(", ");
    const payloads = [...new Set(writes.map((write) => payloadOf(write.signal)))];
    return this.direct.all(
      `WITH ${inserts} SELECT ${payloads.map(() => "pg_notify(?, ?)").join(", ")}`,
      [
        ...statements.flatMap(({ params }) => params),
        ...payloads.flatMap((payload) => [RUN_SIGNAL_CHANNEL, payload]),
      ],
    );
  }

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

// The channel's payloads: `queued`, or `cancelled:<run id>`.
function payloadOf(signal: RunSignal): string {
  return signal.type === "queued" ? "queued" : `cancelled:${signal.runId}`;
}

function signalOf(payload: string): RunSignal | undefined {
  if (payload === "queued") return { type: "queued" };
  if (payload.startsWith("cancelled:")) {
    return { type: "cancelled", runId: payload.slice("cancelled:".length) };
  }
  return undefined;
}
