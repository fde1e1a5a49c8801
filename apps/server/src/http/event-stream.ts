import type { IncomingMessage } from "node:http";
import type { Response } from "express";

// The plumbing of Server-Sent Events answers (routes/streams.ts): opening one, waiting between
// reads, heartbeats.

/** How a live stream reads and keeps its connection open. */
export interface StreamOptions {
  /** How often a stream reads the database when nothing wakes it. */
  pollMs: number;
  /** How long a stream may be quiet before a heartbeat comment goes out. */
  heartbeatMs: number;
  /** Live streams one owner may have open at once (OWNER_MAX_STREAMS). */
  maxPerOwner: number;
  /** Bytes a stream may have waiting for its client before it waits for the client to read. */
  maxBufferedBytes: number;
}

/** How long a stream may wait before it must read again or send a heartbeat. */
export function untilNext(options: StreamOptions, lastWrite: number): number {
  return Math.max(0, Math.min(options.pollMs, options.heartbeatMs - (Date.now() - lastWrite)));
}

/**
 * The wake-ups of one stream, subscribed for its whole life so that none is lost between a read
 * and the next wait: a wake-up that comes while the stream reads makes its next wait end at once.
 */
export class Waker {
  private pending = false;
  private resolveWait: (() => void) | undefined;
  private readonly unsubscribe: () => void;

  constructor(wakes: (listener: (key: string) => void) => () => void, key: string) {
    this.unsubscribe = wakes((woken) => {
      if (woken !== key) return;
      this.pending = true;
      this.resolveWait?.();
    });
  }

  /** Waits `ms`, or less: until a wake-up (perhaps one that came already) or `signal` aborts. */
  wait(ms: number, signal: AbortSignal): Promise<void> {
    if (this.pending || signal.aborted) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      this.resolveWait = done;
      signal.addEventListener("abort", done, { once: true });
      function done() {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        self.resolveWait = undefined;
        self.pending = false;
        resolve();
      }
    });
  }

  close(): void {
    this.unsubscribe();
    this.resolveWait?.();
  }
}

/** An event stream's answer, begun. */
export interface OpenEventStream {
  /** Aborts when the client leaves or the server shuts down. */
  signal: AbortSignal;
  /** Ends the answer. */
  close(): void;
}

/** Starts an event stream's answer: 200 and the headers of a stream no proxy should buffer. */
export function openEventStream(
  req: IncomingMessage,
  res: Response,
  shutdown: AbortSignal,
): OpenEventStream {
  const stop = new AbortController();
  const end = () => stop.abort();
  req.on("close", end);
  shutdown.addEventListener("abort", end);
  res.writeHead(200, {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache",
    // Tells nginx and the like not to buffer the stream.
    "X-Accel-Buffering": "no",
  });
  res.flushHeaders();
  return {
    signal: stop.signal,
    close() {
      req.off("close", end);
      shutdown.removeEventListener("abort", end);
      res.end();
    },
  };
}
