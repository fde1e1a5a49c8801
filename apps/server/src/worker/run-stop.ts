import type { StopKind } from "@skillrun/engine";

/**
 * Why a worker aborts a run it executes; the abort signal's reason.
 *
 * - `cancel`: the client cancelled it (the run is already in `cancel`)
 * - `timeout`: it exceeded its skill's time limit
 * - `shutdown`: the worker is stopping and puts the run back in the queue
 * - `lost`: the run is no longer this worker's (recovered by another after a lapsed lease)
 * - `quota`: a file it stored would take its owner past OWNER_STORAGE_MAX_BYTES (it ends in reset)
 */
export class RunStop extends Error {
  override readonly name = "RunStop";

  /**
   * `explanation` says why, when the kind alone does not: a `timeout` because an ask went
   * unanswered, not because of the run's time limit; the file a `quota` refused.
   */
  constructor(
    readonly kind: StopKind,
    readonly explanation?: string,
  ) {
    super(explanation ?? `run stopped: ${kind}`);
  }
}
