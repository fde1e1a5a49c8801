import type { Server, ServerResponse } from "node:http";

/** Closes an HTTP server the way a shutdown wants it closed (see `closeable`). */
export interface ServerClosing {
  /**
   * Refuses new connections at once, closes idle keep-alive ones, answers the requests in flight
   * and closes their connections once answered; resolves when the last connection is gone.
   * `force` (also while closing already) cuts the connections still open.
   */
  close(options: { force: boolean }): Promise<void>;
  /** Requests being answered now. */
  readonly inFlight: number;
}

/**
 * Follows `server`'s requests so that it can be closed without cutting any: Node's `close()`
 * alone stops listening but waits for keep-alive connections to time out (5 s) even once their
 * last answer has gone, and a client could send another request on one meanwhile.
 */
export function closeable(server: Server): ServerClosing {
  const answering = new Set<ServerResponse>();
  let closed: Promise<void> | undefined;
  server.on("request", (_req, res: ServerResponse) => {
    // A request that arrived as the server closes (on a connection already open) is the last one.
    if (closed !== undefined) res.shouldKeepAlive = false;
    answering.add(res);
    res.once("close", () => answering.delete(res));
  });
  return {
    get inFlight() {
      return answering.size;
    },
    close({ force }) {
      if (closed === undefined) {
        closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        for (const res of answering) {
          // Not yet answered: the answer says `Connection: close` and its connection ends with it.
          if (!res.headersSent) res.shouldKeepAlive = false;
          // Already answering as keep-alive: the connection is idle once the answer is out.
          else res.once("finish", () => setImmediate(() => server.closeIdleConnections()));
        }
      }
      if (force) server.closeAllConnections();
      return closed;
    },
  };
}
