import type { SignalHearer } from "../db/runs/commit.js";

/**
 * How the workers of a process hear at once that a run was queued or cancelled, so they need not
 * wait for their next poll. The signals are announced by the commits that make the changes
 * (db/runs/commit.ts); here they are only listened for. Two implementations: within one process
 * (in-process-run-signals.ts, SQLite) and across processes (postgres-run-signals.ts,
 * LISTEN/NOTIFY); `runSignalsFor` picks by flavour.
 */
export interface RunSignals extends SignalHearer {
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
