/**
 * Counts of runs that hold a worker (in play, or paused with their worker; not parked), as sub-selects about
 * the run or owner row aliased `row`: what the fair queue's limits compare
 * (docs/decisions/0043-queue-limits-counted-at-claim.md). Each reads one index range.
 */
const HOLDING = "h.state IN ('play', 'pause') AND h.parked_at IS NULL";

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

/**
 * What holds back a queued run that saves its browser profile: the owner's runs saving that
 * profile that have not ended, in play or paused, parked ones too (a parked run saves when it
 * ends). A run that only reads its profile is never held back by it
 * (docs/decisions/0054-browser-profiles.md).
 */
const SAVING = "h.state IN ('play', 'pause') AND h.profile_save IS NOT NULL";

/** The runs of `row`'s owner that save `row`'s profile and have not ended (one index range). */
export function profileHolding(row: string): string {
  return `(SELECT COUNT(*) FROM runs h
    WHERE h.owner = ${row}.owner AND h.profile = ${row}.profile AND ${SAVING})`;
}

/**
 * The runs holding a worker counted by owner and skill (`held_skill`) and by owner and
 * concurrency key (`held_key`), and the runs saving a profile by owner and profile
 * (`held_profile`), as a `WITH` for a select over queued runs: one read of the runs
 * holding a worker (as many as there are slots), whatever the queue holds. Not correlated with
 * the owner: SQLite evaluates a correlated `WITH` again for every row that reads it.
 */
export const HELD_GROUPS = `WITH held_skill AS (SELECT h.owner, h.skill_id, COUNT(*) AS n
      FROM runs h WHERE ${HOLDING} GROUP BY h.owner, h.skill_id),
    held_key AS (SELECT h.owner, h.concurrency_key, COUNT(*) AS n
      FROM runs h WHERE ${HOLDING} AND h.concurrency_key IS NOT NULL
      GROUP BY h.owner, h.concurrency_key),
    held_profile AS (SELECT h.owner, h.profile, COUNT(*) AS n
      FROM runs h WHERE ${SAVING} GROUP BY h.owner, h.profile)`;

/**
 * `limitHolding` read from `HELD_GROUPS` joined to the run `row` (as `skill` and `key`): what
 * counts against its concurrency limit.
 */
export function groupHolding(row: string, skill: string, key: string): string {
  return `(CASE WHEN ${row}.concurrency_key IS NULL THEN COALESCE(${skill}.n, 0)
    ELSE COALESCE(${key}.n, 0) END)`;
}
