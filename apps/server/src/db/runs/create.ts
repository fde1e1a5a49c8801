import { query, type SqlStatement, type TransactionPlan } from "../direct-sql.js";
import type { RunCommits, Signalled } from "./commit.js";
import { INSERT_RUN_CHANGE } from "./sql/changes.js";
import {
  CLAIM_IDEMPOTENCY_KEY,
  INSERT_RUN,
  INSERT_RUN_OWNER,
  SELECT_IDEMPOTENCY_KEY,
} from "./sql/create.js";

/** A queued run's row as written: inputs and sealed secret inputs as JSON text. */
export interface NewRunRow {
  id: string;
  owner: string;
  skillId: string;
  name: string;
  inputs: string;
  secretInputs: string | null;
  createdAt: Date;
  startTime: Date;
  /** The skill's `concurrency` when the run is queued; null when it sets none. */
  concurrencyLimit: number | null;
  /** The skill's `concurrency_key` rendered against the run's inputs; null without one. */
  concurrencyKey: string | null;
  /** The skill's `profile.name` rendered against the run's inputs; null without one. */
  profile: string | null;
  /** When the run saves its profile; null when it only reads it (or has none). */
  profileSave: "on_success" | "always" | null;
  /** The traceparent of the request that queued it, when tracing is on; null otherwise. */
  traceParent: string | null;
  /** Where the run executes: on the workers (`cloud`) or on an agent of its owner (`client`). */
  environment: "cloud" | "client";
  /** A `client` run's time limit while it waits queued for an agent; null for a cloud run. */
  queuedUntil: Date | null;
}

/** An owner's idempotency key as taken for a new run. */
export interface KeyClaim {
  key: string;
  requestHash: string;
  /** Keys created at or before it have expired, and are taken over. */
  cutoff: Date;
}

/** What an earlier request's key stands for. */
export interface EarlierKey {
  runId: string;
  requestHash: string;
}

/** What `createOnce` came to: the run was queued, or the key stands for what it found. */
export type KeyedCreate = { created: true } | { created: false; earlier: EarlierKey | null };

/**
 * The run, its change-feed row (for the run stream) and its owner's place in the fair queue's
 * turns, which commit together.
 */
export function newRunStatements(row: NewRunRow): SqlStatement[] {
  return [
    { sql: INSERT_RUN_CHANGE, params: [row.owner, row.id, row.createdAt] },
    { sql: INSERT_RUN_OWNER, params: [row.owner] },
    {
      sql: INSERT_RUN,
      params: [
        ...[row.id, row.owner, row.skillId, row.name],
        ...[row.environment, row.inputs, row.secretInputs, row.createdAt, row.startTime],
        ...[row.concurrencyLimit, row.concurrencyKey, row.profile, row.profileSave],
        row.traceParent,
        row.queuedUntil,
      ],
    },
  ];
}

/**
 * Queues a run and tells the workers, committed with the other runs of this turn
 * (docs/decisions/0011-group-commit-for-new-runs.md): on the path of every `POST /run/`.
 */
export function create(commits: RunCommits, row: NewRunRow): Promise<void> {
  return commits.insert(newRunStatements(row), { type: "queued" });
}

/**
 * Queues a run as `create` does, unless the owner's key is live: then nothing is written and the
 * answer is what the key stands for (null when it vanished between the two statements: another
 * process's sweep removed it). The key row is written first and with the run, in one
 * transaction, so that of concurrent requests with one key exactly one starts a run
 * (docs/decisions/0030-idempotency-keys-in-one-transaction.md).
 */
export function createOnce(
  commits: RunCommits,
  row: NewRunRow,
  key: KeyClaim,
): Promise<KeyedCreate> {
  return commits.change(function* (): TransactionPlan<Signalled<KeyedCreate>> {
    const { changes } = yield* query(CLAIM_IDEMPOTENCY_KEY, [
      ...[row.owner, key.key, key.requestHash, row.id, row.createdAt],
      key.cutoff,
    ]);
    if (changes === 0) {
      const { rows } = yield* query<{ run_id: string; request_hash: string }>(
        SELECT_IDEMPOTENCY_KEY,
        [row.owner, key.key],
      );
      const earlier = rows[0];
      return {
        value: {
          created: false,
          earlier:
            earlier === undefined
              ? null
              : { runId: earlier.run_id, requestHash: earlier.request_hash },
        },
      };
    }
    for (const { sql, params } of newRunStatements(row)) yield* query(sql, params);
    return { value: { created: true }, signal: { type: "queued" } };
  });
}
