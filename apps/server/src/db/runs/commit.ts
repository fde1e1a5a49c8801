import type { Flavour } from "../database-url.js";
import { type DirectSql, query, type SqlStatement, type TransactionPlan } from "../direct-sql.js";
import { GroupCommit } from "../group-commit.js";
import { payloadOf, RUN_SIGNAL_CHANNEL, type RunSignal } from "./signal.js";
import { insertAndNotify, NOTIFY } from "./sql/notify.js";

/** What the plan of a change comes to: its value, and what to tell the workers (if anything). */
export interface Signalled<T> {
  value: T;
  signal?: RunSignal | undefined;
}

/** Where this process hears of a signal its own commit announced (worker/run-signals.ts). */
export interface SignalHearer {
  committed(signal: RunSignal): void;
}

/**
 * Commits changes that queue or cancel runs and announces them exactly when committed, so a
 * worker woken by a signal finds the change made, and a rolled-back change is never told.
 */
export interface RunCommits {
  /** Runs `plan` in one transaction and announces the signal it returns. */
  change<T>(plan: () => TransactionPlan<Signalled<T>>): Promise<T>;
  /**
   * INSERTs none of which needs what another found, committed together with those of the other
   * requests of this turn (docs/decisions/0011-group-commit-for-new-runs.md); the signal is
   * announced once they are.
   */
  insert(statements: readonly SqlStatement[], signal: RunSignal): Promise<void>;
}

/**
 * The commits of a process on `db`. On SQLite this process's workers are told after the commit
 * (other processes on the file find the change by polling); on PostgreSQL the NOTIFY is a
 * statement of the transaction, which PostgreSQL delivers to every listener at commit, this
 * process's included (docs/decisions/0024-run-signals-listen-notify.md).
 */
export function runCommitsFor(
  db: { direct: DirectSql; flavour: Flavour },
  hearer: SignalHearer,
): RunCommits {
  return db.flavour === "postgres" ? postgresCommits(db.direct) : sqliteCommits(db.direct, hearer);
}

function sqliteCommits(direct: DirectSql, hearer: SignalHearer): RunCommits {
  const inserts = new GroupCommit<readonly SqlStatement[]>((writes) =>
    direct.run(function* () {
      for (const { sql, params } of writes.flat()) yield* query(sql, params);
    }),
  );
  return {
    async change<T>(plan: () => TransactionPlan<Signalled<T>>): Promise<T> {
      const { value, signal } = await direct.run(plan);
      if (signal !== undefined) hearer.committed(signal);
      return value;
    },
    async insert(statements, signal) {
      await inserts.write(statements);
      hearer.committed(signal);
    },
  };
}

interface InsertWrite {
  statements: readonly SqlStatement[];
  signal: RunSignal;
}

function postgresCommits(direct: DirectSql): RunCommits {
  // The INSERTs of every write queued together and their notifications, one statement: one
  // round trip for the turn's new runs.
  const inserts = new GroupCommit<InsertWrite>(async (writes) => {
    const statements = writes.flatMap((write) => write.statements);
    const payloads = [...new Set(writes.map((write) => payloadOf(write.signal)))];
    await direct.single(
      insertAndNotify(
        statements.map(({ sql }) => sql),
        payloads.length,
      ),
      [
        ...statements.flatMap(({ params }) => params),
        ...payloads.flatMap((payload) => [RUN_SIGNAL_CHANNEL, payload]),
      ],
    );
  });
  return {
    change<T>(plan: () => TransactionPlan<Signalled<T>>): Promise<T> {
      return direct.run(function* () {
        const { value, signal } = yield* plan();
        if (signal !== undefined) yield* query(NOTIFY, [RUN_SIGNAL_CHANNEL, payloadOf(signal)]);
        return value;
      });
    },
    insert: (statements, signal) => inserts.write({ statements, signal }),
  };
}
