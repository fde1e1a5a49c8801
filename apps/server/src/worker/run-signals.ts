import type { SqlStatement } from "../db/direct-sql.js";
import type { Prisma } from "../generated/sqlite/client/client.js";

/** What a change to a run tells the workers: a run is waiting, or one was cancelled. */
export type RunSignal = { type: "queued" } | { type: "cancelled"; runId: string };

/** The database as the statements of a change see it (a transaction, or the client itself). */
export type ChangeClient = Prisma.TransactionClient;

/**
 * Tells workers at once when a run is queued or cancelled, so they need not wait for their next
 * poll. Two implementations: within one process (in-process-run-signals.ts, SQLite) and across
 * processes (postgres-run-signals.ts, LISTEN/NOTIFY); `runSignalsFor` picks by flavour.
 */
export interface RunSignals {
  /**
   * Makes a change and announces the signal it returns (none: nothing to announce) exactly when
   * the change is committed, so a worker woken by it finds the change made. With `atomic`, the
   * statements of `make` commit together or not at all (on PostgreSQL they always do).
   */
  change<T>(
    make: (db: ChangeClient) => Promise<{ value: T; signal?: RunSignal | undefined }>,
    options?: { atomic?: boolean },
  ): Promise<T>;
  /**
   * The same for INSERTs written straight through the driver (see direct-sql.ts), none needing
   * what another found: they commit together, and the signal is announced exactly when they
   * have. On PostgreSQL they and the NOTIFY go as one statement: one round trip instead of five.
   */
  insert(statements: readonly SqlStatement[], signal: RunSignal): Promise<void>;
  /** Subscribes to queued runs; returns the unsubscribe function. */
  onQueued(listener: () => void): () => void;
  /** Subscribes to cancelled runs; returns the unsubscribe function. */
  onCancelled(listener: (runId: string) => void): () => void;
  /**
   * Subscribes to what wakes live streams: `run:<id>` when events of the run were written,
   * `changes` when any run changed. Only PostgreSQL tells (its triggers NOTIFY at commit, from
   * whichever process wrote); on SQLite nothing does, and streams poll.
   */
  onStreamWake(listener: (key: string) => void): () => void;
  /** Stops listening; releases what the signals hold (a connection). */
  close(): Promise<void>;
}
