/**
 * Queues a run (the parameters: id, owner, skill id, name, environment, inputs, sealed secret
 * inputs, created and start time, concurrency limit and key, profile and when it saves it, trace
 * context, and until when a client run may wait); the columns not named keep their defaults
 * (attempts 0, no pause requested).
 */
export const INSERT_RUN = `INSERT INTO runs (id, owner, skill_id, name, state, environment, inputs,
    secret_inputs, data, created_at, start_time, concurrency_limit, concurrency_key, profile,
    profile_save, trace_parent, queued_until)
  VALUES (?, ?, ?, ?, NULL, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * Enters an owner (the parameter) in the fair queue's turns, as never served; an owner already
 * there keeps its place.
 */
export const INSERT_RUN_OWNER = `INSERT INTO run_owners (owner, last_served) VALUES (?, 0)
  ON CONFLICT (owner) DO NOTHING`;

/** How many runs an owner (the parameter) has queued, for OWNER_MAX_QUEUED. */
export const COUNT_QUEUED = "SELECT COUNT(*) AS queued FROM runs WHERE owner = ? AND state IS NULL";

/** How many runs are queued, every owner's (the index on state, created_at serves it). */
export const COUNT_ALL_QUEUED = "SELECT COUNT(*) AS queued FROM runs WHERE state IS NULL";

/**
 * Takes an idempotency key for a run (owner, key, request hash, run id, now, the expiry cutoff):
 * a new key is inserted, an expired one taken over, a live one left as it is (no row changed).
 */
export const CLAIM_IDEMPOTENCY_KEY = `INSERT INTO idempotency_keys (owner, "key", request_hash,
    run_id, created_at)
  VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (owner, "key") DO UPDATE SET request_hash = excluded.request_hash,
      run_id = excluded.run_id, created_at = excluded.created_at
    WHERE idempotency_keys.created_at <= ?`;

/** The run and request an owner's key stands for. */
export const SELECT_IDEMPOTENCY_KEY = `SELECT run_id, request_hash FROM idempotency_keys
  WHERE owner = ? AND "key" = ?`;
