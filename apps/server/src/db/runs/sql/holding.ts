/**
 * Counts of runs that hold a worker (in play, or paused with their worker), as sub-selects about
 * the run or owner row aliased `row`: what the fair queue's limits compare
 * (docs/decisions/0043-queue-limits-counted-at-claim.md). Each reads one index range.
 */
const HOLDING = "h.state IN ('play', 'pause')";

/** The runs of `row`'s owner that hold a worker. */
export function ownerHolding(row: string): string {
  return `(SELECT COUNT(*) FROM runs h WHERE h.owner = ${row}.owner AND ${HOLDING})`;
}

/**
 * The runs that count against `row`'s concurrency limit and hold a worker: the owner's runs of
 * its skill, or, when it has a concurrency key, the owner's runs with that key.
 */
export function limitHolding(row: string): string {
  return `(CASE WHEN ${row}.concurrency_key IS NULL
      THEN (SELECT COUNT(*) FROM runs h
        WHERE h.owner = ${row}.owner AND h.skill_id = ${row}.skill_id AND ${HOLDING})
      ELSE (SELECT COUNT(*) FROM runs h
        WHERE h.owner = ${row}.owner AND h.concurrency_key = ${row}.concurrency_key AND ${HOLDING})
    END)`;
}
