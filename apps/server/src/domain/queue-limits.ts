/** What the fair queue limits per owner (docs/decisions/0043-queue-limits-counted-at-claim.md). */
export interface QueueLimits {
  /** OWNER_MAX_RUNNING: runs one owner may have holding a worker at once; null for no limit. */
  ownerMaxRunning: number | null;
  /** OWNER_MAX_QUEUED: runs one owner may have queued; past it `POST /run/` is a 429. */
  ownerMaxQueued: number | null;
}

export const NO_QUEUE_LIMITS: QueueLimits = { ownerMaxRunning: null, ownerMaxQueued: null };
