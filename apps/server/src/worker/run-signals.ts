import { EventEmitter } from "node:events";

/**
 * Tells the workers of this process at once when a run is queued or cancelled here, so they
 * need not wait for their next poll. Workers in other processes learn of both by polling, or,
 * on PostgreSQL, through PostgresRunSignals.
 */
export class RunSignals {
  private readonly emitter = new EventEmitter();

  constructor() {
    // One listener per worker in the process, and tests start several.
    this.emitter.setMaxListeners(0);
  }

  queued(): void {
    this.emitter.emit("queued");
  }

  cancelled(runId: string): void {
    this.emitter.emit("cancelled", runId);
  }

  /** Subscribes to queued runs; returns the unsubscribe function. */
  onQueued(listener: () => void): () => void {
    this.emitter.on("queued", listener);
    return () => this.emitter.off("queued", listener);
  }

  /** Stops signalling; nothing to release for signals within one process. */
  async close(): Promise<void> {}

  /** Subscribes to cancelled runs; returns the unsubscribe function. */
  onCancelled(listener: (runId: string) => void): () => void {
    this.emitter.on("cancelled", listener);
    return () => this.emitter.off("cancelled", listener);
  }
}
