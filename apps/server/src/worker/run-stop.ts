/**
 * Why a worker aborts a run it executes; the abort signal's reason.
 *
 * - `cancel`: the client cancelled it (the run is already in `cancel`)
 * - `timeout`: it exceeded its skill's time limit
 * - `shutdown`: the worker is stopping and puts the run back in the queue
 * - `lost`: the run is no longer this worker's (recovered by another after a lapsed lease)
 * - `browser_memory`: its browser used more memory than allowed and was killed; the message says
 *   how much, and the run ends in reset with it
 */
export class RunStop extends Error {
  override readonly name = "RunStop";

  constructor(
    readonly kind: "cancel" | "timeout" | "shutdown" | "lost" | "browser_memory",
    message = `run stopped: ${kind}`,
  ) {
    super(message);
  }
}
