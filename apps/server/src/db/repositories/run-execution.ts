import { MAX_CALL_DEPTH, skillCalls } from "@skillrun/engine";
import type { Clock } from "../../domain/clock.js";
import type { PausedFor, ResumeInput } from "../../domain/paused-for.js";
import { type StoredRunState, sourcesOf } from "../../domain/run-state-machine.js";
import { webhookEventOf } from "../../webhooks/webhook-events.js";
import type { PrismaClient } from "../database.js";
import type { Flavour } from "../database-url.js";
import { type DirectSql, placeholders, query, type TransactionPlan } from "../direct-sql.js";
import { fromJsonColumn, toJsonColumn } from "../json-column.js";
import { recordRunChange } from "./run-changes.js";
import { type NewRunEvent, toRunEventRow } from "./run-events.js";
import { stateIn, stateInSql } from "./run-state-filter.js";
import {
  EVENT_COLUMNS,
  eventValues,
  insertEvents,
  insertRunChange,
  recordRunChangePlan,
} from "./worker-plans.js";

// An ending of a run its worker holds (the parameters: the state, the end time, the data, the
// run's id, the worker's id), both ways of writing it; an ended run needs its secret inputs no
// more. The caller adds the state machine's allowed sources.
const END_HELD_RUN = `UPDATE runs SET state = ?, end_time = ?, data = ?, lease_expires_at = NULL,
    secret_inputs = NULL
  WHERE id = ? AND worker_id = ?`;

// The most events PostgreSQL's ending writes in its one statement; a longer step log left to
// write goes the way of the plan.
const EVENTS_IN_ONE_ENDING = 16;

// EVENT_PLACEHOLDERS with the columns' types: a VALUES list read by a SELECT does not take them
// from the table its rows go to.
const TYPED_EVENT_PLACEHOLDERS = `?::text, ?::timestamp(3), ?::text, ?::integer, ?::text, ?::text,
  ?::text, ?::integer, ?::integer, ?::text, ?::text, ?::text, ?::integer`;

/** A run a worker has claimed, with what it needs to execute it. */
export interface ClaimedRun {
  id: string;
  owner: string;
  skillId: string;
  /** As stored: a secret input's value is `***` here and sealed in `secretInputs`. */
  inputs: Record<string, unknown>;
  /** The sealed values of the run's secret inputs by json_key; null when it has none. */
  secretInputs: Record<string, string> | null;
  /** 1 on the first claim, 2 after the run was re-queued. */
  attempt: number;
  /** The skill's stored definition (JSON parsed, not yet checked). */
  definition: unknown;
  /** The owner's skills its `call`s reach, directly or not, by id (stored definitions). */
  calledSkills: Record<string, unknown>;
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
  /** A client asked the run to pause before its next step. */
  pauseRequested: boolean;
}

/** The ending a worker writes for a run it holds. */
export type WorkerEnding = "finish" | "reset" | "timeout";

const RUNNING = ["play", "pause"] as const;

type ClaimedRow = {
  id: string;
  owner: string;
  skill_id: string;
  inputs: string;
  secret_inputs: string | null;
  attempts: number | bigint;
  /** The skill's stored definition, read by the statement that named its version. */
  definition: string | null;
};

/**
 * SQLite's claim of the oldest queued run: it moves the run to play for the worker (the
 * parameters: its id, the lease's end) and returns it (no row when the queue is empty). SQLite
 * runs it under its single write lock, so the row the sub-select finds is the row updated and no
 * other worker can take it in between. The claim's plan then logs it (see `claim`).
 */
const CLAIM_SQLITE = claimOldestQueued("");

/**
 * PostgreSQL's claim: the same, with its run_claimed event and its change-feed row written by
 * the same statement (the parameters then: the time, the event's message and detail, the time),
 * so a claim, or finding the queue empty, is one round trip instead of five. PostgreSQL lets
 * writers run side by side: the sub-select locks the row it picks and skips rows other workers'
 * claims hold locked, so concurrent claims take different runs instead of queueing behind (or
 * both winning) the same one.
 */
const CLAIM_POSTGRES = `
  WITH claimed AS (${claimOldestQueued("FOR UPDATE SKIP LOCKED")}),
    logged AS (
      INSERT INTO run_events (run_id, at, type, attempt, message, detail)
        SELECT id, ?, 'run_claimed', attempts, ?, ? FROM claimed),
    changed AS (INSERT INTO run_changes (owner, run_id, at) SELECT owner, id, ? FROM claimed)
  SELECT * FROM claimed`;

// The change-feed row is all a claim records of its change: endpoints are not told of `play`.
if (webhookEventOf("play") !== undefined) throw new Error("a claim would have to tell webhooks");

/**
 * The claim with the sub-select's locking clause. The outer `state IS NULL` is the state
 * machine's condition in the statement that writes, as every run write has it; on PostgreSQL it
 * is checked again on the row as it is when updated, so a cancel committed in between leaves it
 * alone. The skill's version and its definition are read by the one statement, so they are of
 * the same version whatever a PUT commits meanwhile.
 */
function claimOldestQueued(lock: string): string {
  return `
    UPDATE runs SET state = 'play', worker_id = ?, lease_expires_at = ?, attempts = attempts + 1,
        effects_step = NULL, paused_for = NULL, pause_requested = false, resume_input = NULL,
        skill_version = (SELECT definition_hash FROM skills
          WHERE skills.owner = runs.owner AND skills.id = runs.skill_id)
      WHERE state IS NULL
        AND id = (SELECT id FROM runs WHERE state IS NULL ORDER BY created_at, id LIMIT 1 ${lock})
      RETURNING id, owner, skill_id, inputs, secret_inputs, attempts,
        (SELECT definition FROM skills
          WHERE skills.owner = runs.owner AND skills.id = runs.skill_id) AS definition`;
}

/**
 * The worker's side of runs: claiming, leases, data, endings and recovery of runs whose worker
 * died. Every change is one conditional UPDATE whose WHERE holds the state machine's allowed
 * sources (domain/run-state-machine.ts), none of them terminal, so races resolve in the
 * database: once a run is finish, reset, cancel or timeout, no write here touches its row again
 * (terminal is final: its state, data and end_time are what the first client to see it saw), and
 * two workers never both win the same run. Events that record a change are written in the same
 * transaction, only when the change happened.
 */
export class RunExecutionRepository {
  constructor(
    private readonly prisma: PrismaClient,
    /** The hot path (claim, step log, ending): plans run straight through the driver. */
    private readonly direct: DirectSql,
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
    const message = `claimed by worker ${workerId}`;
    const detail = { worker: workerId };
    if (this.flavour === "postgres") {
      const rows = await this.direct.all<ClaimedRow>(CLAIM_POSTGRES, [
        workerId,
        leaseExpiresAt,
        now,
        message,
        toJsonColumn(detail),
        now,
      ]);
      const row = rows[0];
      if (row === undefined) return null;
      const definition = storedDefinitionOf(row.definition);
      // Most skills call none. Should this read fail, the run stays claimed without being
      // executed until its lease runs out, and is then taken again as a lost worker's run.
      const called =
        skillCalls(definition).length === 0
          ? {}
          : await this.direct.run(() => calledSkills(row.owner, definition));
      return claimedRun(row, definition, called);
    }
    // One transaction for the claim and the reads of what the run executes: a read that fails
    // (SQLite busy under many worker processes) undoes the claim, instead of leaving the run held
    // and not executed until its lease ran out and it was taken again as a lost worker's run.
    return this.direct.run(function* (): TransactionPlan<ClaimedRun | null> {
      const { rows } = yield* query<ClaimedRow>(CLAIM_SQLITE, [workerId, leaseExpiresAt]);
      const row = rows[0];
      if (row === undefined) return null;
      const attempt = Number(row.attempts);
      yield* insertEvents([
        { runId: row.id, at: now, type: "run_claimed", attempt, message, data: detail },
      ]);
      yield* insertRunChange({ id: row.id, owner: row.owner }, now);
      const definition = storedDefinitionOf(row.definition);
      return claimedRun(row, definition, yield* calledSkills(row.owner, definition));
    });
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
    const rows = await this.direct.all<{
      id: string;
      state: string | null;
      worker_id: string | null;
      pause_requested: boolean | number;
    }>(
      `SELECT id, state, worker_id, pause_requested FROM runs WHERE id IN (${placeholders(runIds.length)})`,
      runIds,
    );
    return rows.map((row) => ({
      id: row.id,
      state: row.state as StoredRunState,
      workerId: row.worker_id,
      // SQLite keeps a boolean as 0 or 1.
      pauseRequested: Boolean(row.pause_requested),
    }));
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
    return this.direct.run(function* (): TransactionPlan<boolean> {
      // Without data the row is still written (to itself): the write is the fence, and on
      // PostgreSQL its row lock keeps a recovery from slipping in before the events commit.
      const { changes } = yield* query(
        `UPDATE runs SET ${data === undefined ? "worker_id = worker_id" : "data = ?"}
          WHERE id = ? AND worker_id = ? AND state IN ('play', 'pause')`,
        [...(data === undefined ? [] : [toJsonColumn(data)]), holder.runId, holder.workerId],
      );
      if (changes !== 1) return false;
      yield* insertEvents(events);
      return true;
    });
  }

  /**
   * Records, before the step begins, that the run may have had effects from now on (the first
   * step with effects of this attempt, `stepLabel`): a run whose worker is then lost is not run
   * again. False when the run was no longer held: then the step must not begin.
   */
  async markEffects(holder: Holder, stepLabel: string): Promise<boolean> {
    const { count } = await this.prisma.run.updateMany({
      where: { id: holder.runId, workerId: holder.workerId, state: { in: [...RUNNING] } },
      data: { effectsStep: stepLabel },
    });
    return count === 1;
  }

  /**
   * Moves a run the worker holds from play to pause, keeping why (`pausedFor`, which the API
   * checks a resume against) and recording `run_paused`; a pending pause request is used up.
   * A pause a client asked for is written only while the request stands: `called_off` when the
   * client resumed before it (the run goes on), `not_held` when the run is no longer the
   * worker's or no longer in play (cancelled meanwhile).
   */
  async pause(
    holder: Holder,
    pausedFor: PausedFor,
    event: NewRunEvent,
  ): Promise<"paused" | "called_off" | "not_held"> {
    return this.prisma.$transaction(async (tx) => {
      const held = { id: holder.runId, workerId: holder.workerId, state: "play" };
      const requested = pausedFor.reason === "requested";
      const { count } = await tx.run.updateMany({
        where: { ...held, ...(requested && { pauseRequested: true }) },
        data: {
          state: "pause",
          pausedFor: toJsonColumn(pausedFor),
          pauseRequested: false,
          resumeInput: null,
        },
      });
      if (count === 1) {
        await tx.runEvent.create({ data: toRunEventRow(event) });
        await recordRunChange(tx, { id: holder.runId }, "pause", event.at);
        return "paused";
      }
      if (requested && (await tx.run.count({ where: held })) === 1) return "called_off";
      return "not_held";
    });
  }

  /**
   * Moves a run the worker holds from pause back to play without an answer (the step that waited
   * gave up), recording `event`. False when it was not paused under this worker (a client
   * resumed it, or it ended).
   */
  async unpause(holder: Holder, event: NewRunEvent): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.run.updateMany({
        where: { id: holder.runId, workerId: holder.workerId, state: "pause" },
        data: { state: "play", pausedFor: null },
      });
      if (count === 1) {
        await tx.runEvent.create({ data: toRunEventRow(event) });
        await recordRunChange(tx, { id: holder.runId }, "play", event.at);
      }
      return count === 1;
    });
  }

  /**
   * What a client resumed the run with, once the API has moved it back to play: taken (so it is
   * read once) and `run_resumed` recorded. Null while the run is still paused, or not held.
   */
  async takeResume(holder: Holder, event: NewRunEvent): Promise<ResumeInput | null> {
    return this.prisma.$transaction(async (tx) => {
      const held = { id: holder.runId, workerId: holder.workerId, state: "play" };
      const row = await tx.run.findFirst({
        where: { ...held, resumeInput: { not: null } },
        select: { resumeInput: true },
      });
      if (row?.resumeInput == null) return null;
      const { count } = await tx.run.updateMany({
        where: { ...held, resumeInput: row.resumeInput },
        data: { resumeInput: null },
      });
      if (count !== 1) return null;
      await tx.runEvent.create({ data: toRunEventRow(event) });
      return fromJsonColumn<ResumeInput>(row.resumeInput);
    });
  }

  /**
   * Records where a cancelled run stopped (`run_cancelled`): the cancel itself was the API's
   * write, so the run is in `cancel`, still naming this worker. False when it is not. Only the
   * events are written (`earlier`, the step log's last, then `event`): the run is terminal, and a terminal run's row is never written again
   * (reading it is enough, since nothing can move it out of `cancel` or change its worker).
   */
  async recordCancelled(
    holder: Holder,
    event: NewRunEvent,
    earlier: readonly NewRunEvent[] = [],
  ): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const cancelled = await tx.run.count({
        where: { id: holder.runId, workerId: holder.workerId, state: "cancel" },
      });
      if (cancelled === 1) {
        await tx.runEvent.createMany({ data: [...earlier, event].map(toRunEventRow) });
      }
      return cancelled === 1;
    });
  }

  /**
   * Ends a run the worker holds in `to` with its final data, recording `event` after `earlier`
   * (the step log's last events, which the ending's transaction writes instead of one of their
   * own). False when the run was no longer the worker's to end (cancelled meanwhile, or recovered
   * from it): then nothing was written.
   */
  async end(
    holder: Holder,
    to: WorkerEnding,
    data: Record<string, unknown>,
    event: NewRunEvent,
    earlier: readonly NewRunEvent[] = [],
  ): Promise<boolean> {
    const sources = stateInSql(sourcesOf(to));
    const { at } = event;
    const events = [...earlier, event];
    if (this.flavour === "postgres" && events.length <= EVENTS_IN_ONE_ENDING) {
      // One statement, one round trip instead of five, for the common case; what it leaves (the
      // run is no longer held, or its owner has endpoints to tell) the plan below sorts out.
      const ended = await this.direct.all(
        `WITH ended AS (
            ${END_HELD_RUN} AND ${sources.sql} AND NOT EXISTS (SELECT 1 FROM webhooks
                WHERE webhooks.owner = runs.owner AND disabled_at IS NULL)
              RETURNING owner),
          logged AS (INSERT INTO run_events (${EVENT_COLUMNS})
            SELECT ${EVENT_COLUMNS} FROM (VALUES ${events.map((_, i) => `(${i}, ${TYPED_EVENT_PLACEHOLDERS})`).join(", ")})
              AS logged (n, ${EVENT_COLUMNS})
              WHERE EXISTS (SELECT 1 FROM ended) ORDER BY n),
          changed AS (INSERT INTO run_changes (owner, run_id, at) SELECT owner, ?, ? FROM ended)
        SELECT owner FROM ended`,
        [
          ...[to, at, toJsonColumn(data), holder.runId, holder.workerId, ...sources.params],
          ...events.flatMap(eventValues),
          ...[holder.runId, at],
        ],
      );
      if (ended.length === 1) return true;
    }
    return this.direct.run(function* (): TransactionPlan<boolean> {
      // Whether its owner has an active webhook comes with the row, so a run without one costs
      // no read of the endpoints.
      const { rows } = yield* query<{ owner: string; endpoints: number | bigint | string }>(
        `${END_HELD_RUN} AND ${sources.sql}
          RETURNING owner, (SELECT COUNT(*) FROM webhooks
            WHERE webhooks.owner = runs.owner AND disabled_at IS NULL) AS endpoints`,
        [to, at, toJsonColumn(data), holder.runId, holder.workerId, ...sources.params],
      );
      const row = rows[0];
      if (row === undefined) return false;
      yield* insertEvents(events);
      const run = { id: holder.runId, owner: row.owner };
      if (Number(row.endpoints) === 0) yield* insertRunChange(run, at);
      else yield* recordRunChangePlan(run, to, at);
      return true;
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
      if (count === 1) {
        await tx.runEvent.create({ data: toRunEventRow(event) });
        await recordRunChange(tx, { id: holder.runId }, null, event.at);
      }
      return count === 1;
    });
  }

  /**
   * Recovers runs whose worker stopped renewing its lease: re-queued while they have been
   * claimed fewer than `maxAttempts` times and began no step with effects (see `markEffects`),
   * otherwise ended in `reset` with an error naming the step the worker was lost in. Returns
   * how many runs were recovered.
   */
  async recoverLost(maxAttempts: number): Promise<number> {
    const now = this.clock.now();
    const expired = await this.prisma.run.findMany({
      where: { state: { in: [...RUNNING] }, leaseExpiresAt: { lt: now } },
      select: {
        id: true,
        workerId: true,
        attempts: true,
        data: true,
        leaseExpiresAt: true,
        effectsStep: true,
      },
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
      // The step log may lag behind the mark, which was written before its step began.
      const step = lastStep?.stepLabel ?? run.effectsStep;
      const requeue = run.attempts < maxAttempts && run.effectsStep === null;
      const message =
        run.effectsStep !== null
          ? `worker lost during step ${step}; not re-run because it may have had effects (${lost}; a skill with on_worker_loss: restart is re-run instead)`
          : requeue
            ? `${lost}; the run was re-queued (attempt ${run.attempts} of ${maxAttempts})`
            : `${lost}; attempt ${run.attempts} of ${maxAttempts}, so the run was reset`;
      const error = { step, message };
      const changed = await this.prisma.$transaction(async (tx) => {
        const where = {
          id: run.id,
          workerId: run.workerId,
          leaseExpiresAt: { lt: now },
          // A mark written since it was read makes the re-queue match nothing.
          ...(requeue && { effectsStep: null }),
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
                secretInputs: null,
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
              data: {
                worker: run.workerId,
                requeued: requeue,
                ...(run.effectsStep !== null && { effects_step: run.effectsStep }),
              },
            }),
          });
          await recordRunChange(tx, { id: run.id }, requeue ? null : "reset", now);
        }
        return count === 1;
      });
      if (changed) recovered += 1;
    }
    return recovered;
  }
}

/**
 * The skills a definition reaches through `call`, read level by level. A skill named but not
 * stored is left out: the call fails when the run reaches it, saying so.
 */
/**
 * A stored definition, or null when there is none or it is not JSON (the run then fails, naming
 * its skill, rather than its claim failing again and again at the head of the queue).
 */
function storedDefinitionOf(text: string | null): unknown {
  if (text === null) return null;
  try {
    return fromJsonColumn<unknown>(text);
  } catch {
    return null;
  }
}

function claimedRun(
  row: ClaimedRow,
  definition: unknown,
  calledSkills: Record<string, unknown>,
): ClaimedRun {
  return {
    id: row.id,
    owner: row.owner,
    skillId: row.skill_id,
    inputs: fromJsonColumn<Record<string, unknown>>(row.inputs),
    secretInputs: fromJsonColumn<Record<string, string>>(row.secret_inputs),
    attempt: Number(row.attempts),
    definition,
    calledSkills,
  };
}

function* calledSkills(
  owner: string,
  definition: unknown,
): TransactionPlan<Record<string, unknown>> {
  const found: Record<string, unknown> = {};
  let wanted = [...new Set(skillCalls(definition).map((call) => call.skill))];
  // Imports refuse cycles and the engine stops calls 8 deep; the bound only guards the read.
  for (let depth = 0; depth < MAX_CALL_DEPTH && wanted.length > 0; depth += 1) {
    const { rows } = yield* query<{ id: string; definition: string }>(
      `SELECT id, definition FROM skills WHERE owner = ? AND id IN (${placeholders(wanted.length)})`,
      [owner, ...wanted],
    );
    const next = new Set<string>();
    for (const row of rows) {
      const called = storedDefinitionOf(row.definition);
      found[row.id] = called;
      for (const call of skillCalls(called)) if (!(call.skill in found)) next.add(call.skill);
    }
    wanted = [...next];
  }
  return found;
}
