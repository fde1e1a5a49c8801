import type { Dispatcher } from "undici";
import { guardedDispatcher } from "./dispatcher.js";
import { createNetworkGuard, type NetworkGuard } from "./guard.js";
import { DEFAULT_NETWORK_POLICY, type NetworkPolicy } from "./policy.js";

/** One run's way out: its guard, and a fetch dispatcher made on first use. */
export interface NetworkAccess {
  guard: NetworkGuard;
  /** For `fetch(url, { dispatcher })`: connects only where the guard allows. */
  dispatcher(): Dispatcher;
  /** Closes the dispatcher's connections, if one was made. */
  close(): Promise<void>;
}

/** The network access of a run under `policy` (nothing private when absent). */
export function networkAccess(policy: NetworkPolicy = DEFAULT_NETWORK_POLICY): NetworkAccess {
  const guard = createNetworkGuard(policy);
  let made: Dispatcher | undefined;
  return {
    guard,
    dispatcher() {
      made ??= guardedDispatcher(guard);
      return made;
    },
    async close() {
      // destroy, not close: a response body nobody read must not hold the run's end.
      await made?.destroy().catch(() => undefined);
    },
  };
}
