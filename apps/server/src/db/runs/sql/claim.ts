import { placeholders } from "../../direct-sql.js";
import { groupHolding, HELD_GROUPS, ownerHolding } from "./holding.js";

/** What a claim returns of the run it took. */
const CLAIMED_COLUMNS = `id, owner, skill_id, inputs, secret_inputs, attempts, resume_from, rerun_of,
        rerun_own_inputs, active_ms, profile, profile_save, created_at, trace_parent, schedule_id,
        queued_until,
        (SELECT definition FROM skills
          WHERE skills.owner = runs.owner AND skills.id = runs.skill_id) AS definition`;

/**
 * The next run of the fair queue (docs/decisions/0042-fair-queue-round-robin.md): owners in the
 * order they were last served (never first), each under OWNER_MAX_RUNNING (the parameter), and
 * of the first owner that has one, its oldest queued run whose concurrency limit has room. The
 * runs holding a worker are counted once per skill and per key (`HELD_GROUPS`), and each queued
 * run is compared with its group's count by a join rather than a count of its own, so that an
 * owner's backlog of held-back runs costs a claim an index step each
 * (docs/decisions/0043-queue-limits-counted-at-claim.md). A run that saves its browser profile
 * waits while another of the owner's runs that saves it has not ended (`held_profile`,
 * docs/decisions/0054-browser-profiles.md). The locking clause names the run. `scope`: the
 * workers take cloud runs of any owner; an agent takes its owner's (one more parameter, after the
 * owner's limit) client runs (docs/decisions/0065-agents-pull-client-runs.md).
 */
function pickNext(lock: string, scope: ClaimScope): string {
  const environment =
    scope === "cloud"
      ? "(q.environment IS NULL OR q.environment <> 'client')"
      : "q.environment = 'client'";
  const owner = scope === "cloud" ? "" : "AND o.owner = ?";
  return `SELECT r.id FROM run_owners o
      JOIN runs r ON r.id = (${HELD_GROUPS}
        SELECT q.id FROM runs q
          LEFT JOIN held_skill hs ON hs.owner = q.owner AND hs.skill_id = q.skill_id
          LEFT JOIN held_key hk ON hk.owner = q.owner AND hk.concurrency_key = q.concurrency_key
          LEFT JOIN held_profile hp ON hp.owner = q.owner AND hp.profile = q.profile
        WHERE q.owner = o.owner AND q.state IS NULL AND ${environment}
          AND (q.concurrency_limit IS NULL OR ${groupHolding("q", "hs", "hk")} < q.concurrency_limit)
          AND (q.profile_save IS NULL OR hp.n IS NULL)
        ORDER BY q.created_at, q.id LIMIT 1 ${lock})
      WHERE ${ownerHolding("o")} < ? ${owner}
      ORDER BY o.last_served, o.owner LIMIT 1`;
}

/**
 * The claim of the fair queue's next run: it moves the run to play for the worker (the
 * parameters: its id, the lease's end, the owner's limit) and returns it. The outer
 * `state IS NULL` is the state machine's condition in the statement that writes, as every run
 * write has it; on PostgreSQL it is checked again on the row as it is when updated, so a cancel
 * committed in between leaves it alone. The skill's version and its definition are read by the
 * one statement, so they are of the same version whatever a PUT commits meanwhile.
 */
function claimNext(lock: string, scope: ClaimScope): string {
  return `
    UPDATE runs SET state = 'play', worker_id = ?, lease_expires_at = ?, attempts = attempts + 1,
        effects_step = NULL, paused_for = NULL, pause_requested = false, resume_input = NULL,
        skill_version = (SELECT definition_hash FROM skills
          WHERE skills.owner = runs.owner AND skills.id = runs.skill_id)
      WHERE state IS NULL AND id = (${pickNext(lock, scope)})
      RETURNING ${CLAIMED_COLUMNS}`;
}

/** Makes an owner (the parameter) the one served last: its turn comes after every other's. */
export const MARK_SERVED = `UPDATE run_owners
  SET last_served = (SELECT MAX(last_served) + 1 FROM run_owners) WHERE owner = ?`;

/**
 * SQLite's claim: it runs under SQLite's single write lock, so the counts and the row the
 * sub-select finds are the database as it is, and no other worker can claim in between. The
 * plan then marks the owner served and logs the claim.
 */
export const CLAIM_SQLITE = claimNext("", "cloud");

/** An agent's claim on SQLite: CLAIM_SQLITE's parameters, then the agent's owner. */
export const AGENT_CLAIM_SQLITE = claimNext("", "agent");

/** Who claims: the workers (cloud runs), or an agent (its owner's client runs). */
export type ClaimScope = "cloud" | "agent";

/**
 * The key of the transaction-scoped advisory lock PostgreSQL's claims take one at a time: the
 * limits compare counts, which two claims side by side would each read without the other's run.
 */
export const CLAIM_LOCK_KEY = 5_172_301;

/** Waits for the claims' lock; held until the transaction ends. */
export const LOCK_CLAIMS = `SELECT pg_advisory_xact_lock(${CLAIM_LOCK_KEY})`;

/**
 * PostgreSQL's claim, under the claims' lock: the same, with its owner marked served, its
 * run_claimed event and its change-feed row written by the same statement (the parameters then:
 * the time, the event's message and detail, the time). The sub-select skips rows another
 * transaction holds locked (a cancel being written), so a claim takes the next run instead of
 * waiting for it.
 */
export const CLAIM_POSTGRES = claimPostgres("cloud");

/** An agent's claim on PostgreSQL: the owner's limit, then the agent's owner, then as above. */
export const AGENT_CLAIM_POSTGRES = claimPostgres("agent");

function claimPostgres(scope: ClaimScope): string {
  return `
  WITH claimed AS (${claimNext("FOR UPDATE OF q SKIP LOCKED", scope)}),
    served AS (UPDATE run_owners SET last_served = (SELECT MAX(last_served) + 1 FROM run_owners)
      WHERE owner IN (SELECT owner FROM claimed)),
    logged AS (
      INSERT INTO run_events (run_id, at, type, attempt, message, detail)
        SELECT id, ?, 'run_claimed', attempts, ?, ? FROM claimed),
    changed AS (INSERT INTO run_changes (owner, run_id, at) SELECT owner, id, ? FROM claimed)
  SELECT * FROM claimed`;
}

/** Extends the lease (its end, then the worker) of `count` runs (their ids) the worker holds. */
export function renewLeases(count: number): string {
  return `UPDATE runs SET lease_expires_at = ?
    WHERE worker_id = ? AND state IN ('play', 'pause') AND id IN (${placeholders(count)})`;
}

/** The owner's skills among `count` ids, with their stored definitions. */
export function selectSkills(count: number): string {
  return `SELECT id, definition FROM skills WHERE owner = ? AND id IN (${placeholders(count)})`;
}

/** Where `count` runs (their ids) stand, as their workers watch them. */
export function selectHeldStates(count: number): string {
  // With until when somebody watches the run's live view: read with what the worker reads anyway.
  return `SELECT r.id, r.state, r.worker_id, r.pause_requested, l.watch_ends_at
    FROM runs r LEFT JOIN run_live_views l ON l.run_id = r.id
    WHERE r.id IN (${placeholders(count)})`;
}

/**
 * Takes a parked run that may go on (docs/decisions/0052-parking.md): resumed by a client, or a
 * `wait` whose end has come (the parameters: worker id, the lease's end, now). Parked runs go
 * ahead of queued ones and past the queue's limits: they were admitted once already. The claim is
 * not a new attempt.
 */
export function claimParked(lock: string): string {
  return `UPDATE runs SET worker_id = ?, lease_expires_at = ?, parked_at = NULL, wake_at = NULL,
      effects_step = NULL
    WHERE state = 'play' AND worker_id IS NULL AND parked_at IS NOT NULL AND id = (
      SELECT p.id FROM runs p WHERE p.state = 'play' AND p.worker_id IS NULL
        AND p.parked_at IS NOT NULL AND (p.environment IS NULL OR p.environment <> 'client') AND (p.wake_at IS NULL OR p.wake_at <= ?)
      ORDER BY p.parked_at, p.id LIMIT 1 ${lock})
    RETURNING ${CLAIMED_COLUMNS}`;
}
