import type { RunSignal } from "../db/runs/signal.js";
import type { RunSignals } from "./run-signals.js";
import { SignalListeners } from "./signal-listeners.js";

/**
 * Run signals within one process (SQLite): the workers of this process hear of a change
 * committed through it as soon as it is committed. Other processes on the same file find it by
 * polling.
 */
export class InProcessRunSignals implements RunSignals {
  private readonly listeners = new SignalListeners();

  committed(signal: RunSignal): void {
    this.listeners.deliver(signal);
  }

  onQueued(listener: () => void): () => void {
    return this.listeners.onQueued(listener);
  }

  onCancelled(listener: (runId: string) => void): () => void {
    return this.listeners.onCancelled(listener);
  }

  // SQLite has no notifications: streams poll instead.
  onStreamWake(): () => void {
    return () => undefined;
  }

  async close(): Promise<void> {}
}
