import type { PrismaClient } from "../db/database.js";
import { type DirectSql, query, type SqlStatement } from "../db/direct-sql.js";
import { GroupCommit } from "../db/group-commit.js";
import type { ChangeClient, RunSignal, RunSignals } from "./run-signals.js";
import { SignalListeners } from "./signal-listeners.js";

/**
 * Run signals within one process (SQLite): the workers of this process hear of a change made
 * through it as soon as it is written. Other processes on the same file find it by polling.
 */
export class InProcessRunSignals implements RunSignals {
  private readonly listeners = new SignalListeners();
  /** New runs of concurrent requests share a transaction (see GroupCommit). */
  private readonly inserts: GroupCommit<readonly SqlStatement[]>;

  constructor(
    private readonly prisma: PrismaClient,
    direct: DirectSql,
  ) {
    this.inserts = new GroupCommit((writes) =>
      direct.run(function* () {
        for (const { sql, params } of writes.flat()) yield* query(sql, params);
      }),
    );
  }

  // No transaction unless asked: the signal is delivered after the statements have run, and each
  // SQLite statement commits on its own. Prisma's SQLite adapter has one connection per process:
  // a transaction takes it, and other requests' statements made meanwhile run inside it, so only
  // changes of several statements that must commit together ask for one.
  async change<T>(
    make: (db: ChangeClient) => Promise<{ value: T; signal?: RunSignal | undefined }>,
    options: { atomic?: boolean } = {},
  ): Promise<T> {
    const { value, signal } = options.atomic
      ? await this.prisma.$transaction(make)
      : await make(this.prisma);
    if (signal !== undefined) this.listeners.deliver(signal);
    return value;
  }

  async insert(statements: readonly SqlStatement[], signal: RunSignal): Promise<void> {
    await this.inserts.write(statements);
    this.listeners.deliver(signal);
  }

  onQueued(listener: () => void): () => void {
    return this.listeners.onQueued(listener);
  }

  onCancelled(listener: (runId: string) => void): () => void {
    return this.listeners.onCancelled(listener);
  }

  // SQLite has no notifications: streams poll instead.
  onStreamWake(): () => void {
    return () => undefined;
  }

  async close(): Promise<void> {}
}
