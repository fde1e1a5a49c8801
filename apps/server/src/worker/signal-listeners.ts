import { EventEmitter } from "node:events";
import type { RunSignal } from "../db/runs/signal.js";

/** The subscribers of one process to run signals, and how a signal reaches them. */
export class SignalListeners {
  private readonly emitter = new EventEmitter();

  constructor() {
    // One listener per worker in the process, and tests start several.
    this.emitter.setMaxListeners(0);
  }

  deliver(signal: RunSignal): void {
    if (signal.type === "queued") this.emitter.emit("queued");
    else this.emitter.emit("cancelled", signal.runId);
  }

  onQueued(listener: () => void): () => void {
    this.emitter.on("queued", listener);
    return () => this.emitter.off("queued", listener);
  }

  onCancelled(listener: (runId: string) => void): () => void {
    this.emitter.on("cancelled", listener);
    return () => this.emitter.off("cancelled", listener);
  }

  wakeStreams(key: string): void {
    this.emitter.emit("stream", key);
  }

  onStreamWake(listener: (key: string) => void): () => void {
    this.emitter.on("stream", listener);
    return () => this.emitter.off("stream", listener);
  }
}
