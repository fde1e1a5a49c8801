import type { Clock } from "../../domain/clock.js";
import { type StoredRunState, sourcesOf } from "../../domain/run-state-machine.js";
import type { PrismaClient } from "../database.js";
import type { Flavour } from "../database-url.js";
import { fromJsonColumn, toJsonColumn } from "../json-column.js";
import { type NewRunEvent, toRunEventRow } from "./run-events.js";
import { stateIn } from "./run-state-filter.js";

/** A run a worker has claimed, with what it needs to execute it. */
export interface ClaimedRun {
  id: string;
  owner: string;
  skillId: string;
  inputs: Record<string, unknown>;
  /** 1 on the first claim, 2 after the run was re-queued. */
  attempt: number;
  /** The skill's stored definition (JSON parsed, not yet checked). */
  definition: unknown;
}

/** Who holds a run: every write of a worker is conditional on still holding it. */
export interface Holder {
  runId: string;
  workerId: string;
}

/** How a worker finds one of its runs when it looks (cancelled, or taken from it). */
export interface HeldRunState {
  id: string;
  state: StoredRunState;
  workerId: string | null;
}

/** The ending a worker writes for a run it holds. */
export type WorkerEnding = "finish" | "reset" | "timeout";

const RUNNING = ["play", "pause"] as const;

type ClaimedRow = {
  id: string;
  owner: string;
  skill_id: string;
  inputs: string;
  attempts: number | bigint;
};

/**
 * The one statement that claims the oldest queued run, per flavour: it moves the run to play for
 * `workerId` and returns it (no row when the queue is empty).
 */
const CLAIM_OLDEST_QUEUED: Record<
  Flavour,
  (
    db: Pick<PrismaClient, "$queryRaw">,
    workerId: string,
    leaseExpiresAt: Date,
  ) => Promise<ClaimedRow[]>
> = {
  // SQLite runs the statement under its single write lock, so the row the sub-select finds is
  // the row updated and no other worker can take it in between.
  sqlite: (db, workerId, leaseExpiresAt) => db.$queryRaw<ClaimedRow[]>`
    UPDATE "runs" SET "state" = 'play', "worker_id" = ${workerId},
        "lease_expires_at" = ${leaseExpiresAt}, "attempts" = "attempts" + 1
      WHERE "id" = (SELECT "id" FROM "runs" WHERE "state" IS NULL
                    ORDER BY "created_at", "id" LIMIT 1)
      RETURNING "id", "owner", "skill_id", "inputs", "attempts"`,
  // PostgreSQL lets writers run side by side: the sub-select locks the row it picks and skips
  // rows other workers' claims hold locked, so concurrent claims take different runs instead
  // of queueing behind (or both winning) the same one. The lock holds until the transaction,
  // with its run_claimed event, commits.
  postgres: (db, workerId, leaseExpiresAt) => db.$queryRaw<ClaimedRow[]>`
    UPDATE "runs" SET "state" = 'play', "worker_id" = ${workerId},
        "lease_expires_at" = ${leaseExpiresAt}, "attempts" = "attempts" + 1
      WHERE "id" = (SELECT "id" FROM "runs" WHERE "state" IS NULL
                    ORDER BY "created_at", "id" LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING "id", "owner", "skill_id", "inputs", "attempts"`,
};

/**
 * The worker's side of runs: claiming, leases, data, endings and recovery of runs whose worker
 * died. Every change is one conditional UPDATE whose WHERE holds the state machine's allowed
 * sources (domain/run-state-machine.ts), so a terminal run is never changed and two workers
 * never both win the same run. Events that record a change are written in the same
 * transaction, only when the change happened.
 */
export class RunExecutionRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: Clock,
    /** Which SQL dialect the claim statement is written in. */
    private readonly flavour: Flavour,
  ) {}

  /**
   * Takes the oldest queued run for `workerId` (→ play, lease until now + leaseMs) and records
   * `run_claimed`; null when the queue is empty.
   */
  async claim(workerId: string, leaseMs: number): Promise<ClaimedRun | null> {
    const now = this.clock.now();
    const leaseExpiresAt = new Date(now.getTime() + leaseMs);
    const claimed = await this.prisma.$transaction(async (tx) => {
      const rows = await CLAIM_OLDEST_QUEUED[this.flavour](tx, workerId, leaseExpiresAt);
      const row = rows[0];
      if (row === undefined) return null;
      const attempt = Number(row.attempts);
      await tx.runEvent.create({
        data: toRunEventRow({
          runId: row.id,
          at: now,
          type: "run_claimed",
          attempt,
          message: `claimed by worker ${workerId}`,
          data: { worker: workerId },
        }),
      });
      return { ...row, attempt };
    });
    if (claimed === null) return null;
    const skill = await this.prisma.skill.findUnique({
      where: { owner_id: { owner: claimed.owner, id: claimed.skill_id } },
      select: { definition: true },
    });
    return {
      id: claimed.id,
      owner: claimed.owner,
      skillId: claimed.skill_id,
      inputs: fromJsonColumn<Record<string, unknown>>(claimed.inputs),
      attempt: claimed.attempt,
      definition: skill ? fromJsonColumn<unknown>(skill.definition) : null,
    };
  }

  /** Extends the lease of every run in `runIds` that `workerId` still holds. */
  async renewLeases(workerId: string, runIds: string[], leaseMs: number): Promise<void> {
    if (runIds.length === 0) return;
    await this.prisma.run.updateMany({
      where: { id: { in: runIds }, workerId, state: { in: [...RUNNING] } },
      data: { leaseExpiresAt: new Date(this.clock.now().getTime() + leaseMs) },
    });
  }

  /** The current state and holder of each run, to learn of cancels and lost claims. */
  async statesOf(runIds: string[]): Promise<HeldRunState[]> {
    if (runIds.length === 0) return [];
    const rows = await this.prisma.run.findMany({
      where: { id: { in: runIds } },
      select: { id: true, state: true, workerId: true },
    });
    return rows.map((row) => ({ ...row, state: row.state as StoredRunState }));
  }

  /**
   * Appends events and, when given, replaces the run's data, in one transaction, only while
   * `holder` still holds the run (its worker, in play or pause): the run's row is updated first
   * and the events follow only when that matched. False when the run was no longer held (recovered
   * by another worker, cancelled, ended): then nothing was written.
   */
  async record(
    holder: Holder,
    events: NewRunEvent[],
    data?: Record<string, unknown>,
  ): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.run.updateMany({
        where: { id: holder.runId, workerId: holder.workerId, state: { in: [...RUNNING] } },
        // Without data the row is still written (to itself): the write is the fence, and on
        // PostgreSQL its row lock keeps a recovery from slipping in before the events commit.
        data: data === undefined ? { workerId: holder.workerId } : { data: toJsonColumn(data) },
      });
      if (count !== 1) return false;
      if (events.length > 0) await tx.runEvent.createMany({ data: events.map(toRunEventRow) });
      return true;
    });
  }

  /**
   * Records where a cancelled run stopped (`run_cancelled`): the cancel itself was the API's
   * write, so the run is in `cancel`, still naming this worker. False when it is not.
   */
  async recordCancelled(holder: Holder, event: NewRunEvent): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.run.updateMany({
        where: { id: holder.runId, workerId: holder.workerId, state: "cancel" },
        data: { workerId: holder.workerId },
      });
      if (count === 1) await tx.runEvent.create({ data: toRunEventRow(event) });
      return count === 1;
    });
  }

  /**
   * Ends a run the worker holds in `to` with its final data, recording `event`. False when the
   * run was no longer the worker's to end (cancelled meanwhile, or recovered from it).
   */
  async end(
    holder: Holder,
    to: WorkerEnding,
    data: Record<string, unknown>,
    event: NewRunEvent,
  ): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.run.updateMany({
        where: { id: holder.runId, workerId: holder.workerId, ...stateIn(sourcesOf(to)) },
        data: { state: to, endTime: event.at, data: toJsonColumn(data), leaseExpiresAt: null },
      });
      if (count === 1) await tx.runEvent.create({ data: toRunEventRow(event) });
      return count === 1;
    });
  }

  /**
   * Puts a run the worker holds back in the queue (the worker is shutting down); the claim does
   * not count as an attempt. False when the run was no longer the worker's.
   */
  async release(holder: Holder, event: NewRunEvent): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.run.updateMany({
        where: { id: holder.runId, workerId: holder.workerId, ...stateIn(sourcesOf(null)) },
        data: {
          state: null,
          workerId: null,
          leaseExpiresAt: null,
          data: null,
          attempts: { decrement: 1 },
        },
      });
      if (count === 1) await tx.runEvent.create({ data: toRunEventRow(event) });
      return count === 1;
    });
  }

  /**
   * Recovers runs whose worker stopped renewing its lease: re-queued while they have been
   * claimed fewer than `maxAttempts` times, otherwise ended in `reset` with an error saying the
   * worker was lost. Returns how many runs were recovered.
   */
  async recoverLost(maxAttempts: number): Promise<number> {
    const now = this.clock.now();
    const expired = await this.prisma.run.findMany({
      where: { state: { in: [...RUNNING] }, leaseExpiresAt: { lt: now } },
      select: { id: true, workerId: true, attempts: true, data: true, leaseExpiresAt: true },
      take: 100,
    });
    let recovered = 0;
    for (const run of expired) {
      const lastStep = await this.prisma.runEvent.findFirst({
        where: { runId: run.id, type: "step_started" },
        orderBy: { id: "desc" },
        select: { stepLabel: true },
      });
      const lost = `worker ${run.workerId ?? "?"} was lost: it stopped renewing its lease (expired ${run.leaseExpiresAt?.toISOString()})`;
      const requeue = run.attempts < maxAttempts;
      const message = requeue
        ? `${lost}; the run was re-queued (attempt ${run.attempts} of ${maxAttempts})`
        : `${lost}; attempt ${run.attempts} of ${maxAttempts}, so the run was reset`;
      const error = { step: lastStep?.stepLabel ?? null, message };
      const changed = await this.prisma.$transaction(async (tx) => {
        const where = {
          id: run.id,
          workerId: run.workerId,
          leaseExpiresAt: { lt: now },
          ...stateIn(sourcesOf(requeue ? null : "reset")),
        };
        const { count } = requeue
          ? await tx.run.updateMany({
              where,
              data: { state: null, workerId: null, leaseExpiresAt: null, data: null },
            })
          : await tx.run.updateMany({
              where,
              data: {
                state: "reset",
                endTime: now,
                leaseExpiresAt: null,
                data: toJsonColumn({ ...fromJsonColumn<object>(run.data), error }),
              },
            });
        if (count === 1) {
          await tx.runEvent.create({
            data: toRunEventRow({
              runId: run.id,
              at: now,
              type: "worker_lost",
              attempt: run.attempts,
              message,
              data: { worker: run.workerId, requeued: requeue },
            }),
          });
        }
        return count === 1;
      });
      if (changed) recovered += 1;
    }
    return recovered;
  }
}
