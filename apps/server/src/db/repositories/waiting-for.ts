import type { RunSession } from "../../domain/api-types.js";
import { limitHolding, ownerHolding, profileHolding } from "../runs/sql/holding.js";

/** What a queued run waits for (RunSession.waiting_for). */
export type WaitingFor = NonNullable<RunSession["waiting_for"]>;

/**
 * The columns a read of runs adds so that a queued run can say what it waits for: its limit and
 * key, and the counts its limits compare, computed only for queued rows (CASE evaluates the
 * sub-selects of the rows it takes), so a page of ended runs costs nothing more
 * (docs/decisions/0044-waiting-for-read-from-counts.md). For a FROM of the table `runs`.
 */
export const WAITING_COLUMNS = `concurrency_limit, concurrency_key,
  CASE WHEN state IS NULL THEN ${ownerHolding("runs")} END AS owner_holding,
  CASE WHEN state IS NULL AND concurrency_limit IS NOT NULL THEN ${limitHolding("runs")} END
    AS limit_holding,
  CASE WHEN state IS NULL AND profile_save IS NOT NULL THEN ${profileHolding("runs")} END
    AS profile_holding`;

/** The counts of a run about to be queued (owner, skill id, concurrency key, profile). */
export const WAITING_OF_NEW = `SELECT ${ownerHolding("runs")} AS owner_holding,
    ${limitHolding("runs")} AS limit_holding, ${profileHolding("runs")} AS profile_holding
  FROM (SELECT CAST(? AS TEXT) AS owner, CAST(? AS TEXT) AS skill_id,
    CAST(? AS TEXT) AS concurrency_key, CAST(? AS TEXT) AS profile) AS runs`;

/** A row's WAITING_COLUMNS (PostgreSQL returns counts as text). */
export interface WaitingColumns {
  /** `client` runs wait for an agent of their owner. */
  environment: string | null;
  concurrency_limit: number | null;
  concurrency_key: string | null;
  owner_holding: number | string | null;
  limit_holding: number | string | null;
  /** Runs saving the run's profile that have not ended; null unless the run saves one. */
  profile_holding: number | string | null;
}

/**
 * What a queued run waits for: the owner's limit first (nothing of the owner's starts while it
 * is reached), then its skill's or key's, then its profile being saved by another run, else a
 * free slot. Null for a run that is not queued.
 */
export function waitingForOf(
  state: string | null,
  row: WaitingColumns,
  ownerMaxRunning: number | null,
): WaitingFor | null {
  if (state !== null) return null;
  // An agent takes a client run whatever the workers' limits: it waits for one.
  if (row.environment === "client") return "agent";
  if (ownerMaxRunning !== null && Number(row.owner_holding) >= ownerMaxRunning) {
    return "owner_limit";
  }
  if (row.concurrency_limit !== null && Number(row.limit_holding) >= row.concurrency_limit) {
    return row.concurrency_key === null ? "skill_limit" : "concurrency_key";
  }
  if (Number(row.profile_holding ?? 0) > 0) return "profile";
  return "slot";
}
