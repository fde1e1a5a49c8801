import { MAX_CALL_DEPTH, skillCalls } from "@skillrun/engine";
import type { StoredRunState } from "../../domain/run-state-machine.js";
import { webhookEventOf } from "../../webhooks/webhook-events.js";
import type { Flavour } from "../database-url.js";
import { type DirectSql, query, type TransactionPlan } from "../direct-sql.js";
import { fromJsonColumn, toJsonColumn } from "../json-column.js";
import { insertRunChange } from "./changes.js";
import { insertEvents } from "./record.js";
import {
  AGENT_CLAIM_POSTGRES,
  AGENT_CLAIM_SQLITE,
  CLAIM_POSTGRES,
  CLAIM_SQLITE,
  claimParked,
  LOCK_CLAIMS,
  MARK_SERVED,
  renewLeases as renewLeasesSql,
  selectHeldStates,
  selectSkills,
} from "./sql/claim.js";

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
  /**
   * The label of the checkpoint of this run to go on from (a rerun's first step, or where a
   * released run was); null otherwise (see ExecuteRun's prepare).
   */
  resumeFrom: string | null;
  /** The run this one reruns, when it is a rerun. */
  rerunOf: string | null;
  /** A rerun given inputs of its own; otherwise it goes on with those its checkpoint holds. */
  rerunOwnInputs: boolean;
  /** Milliseconds of its time limit it used in claims before this one. */
  activeMs: number;
  /** Claimed to go on from where it was parked (see `resumeFrom`). */
  woken: boolean;
  /** The owner's skills its `call`s reach, directly or not, by id (stored definitions). */
  calledSkills: Record<string, unknown>;
  /**
   * Its browser profile, as rendered when it was queued, and when it saves it (null: it only
   * reads it); null when its skill names none.
   */
  profile: { name: string; save: "on_success" | "always" | null } | null;
  /** When it was queued: its wait in the queue is measured from here (the metrics). */
  createdAt: Date;
  /** The traceparent of the request that queued it (tracing on); null otherwise. */
  traceParent: string | null;
  /** A schedule started it (its span begins a trace of its own). */
  scheduled: boolean;
  /** A client run's time limit (it counted while the run waited); null for a cloud run. */
  queuedUntil: Date | null;
}

/** How a worker finds one of its runs when it looks (cancelled, or taken from it). */
export interface HeldRunState {
  id: string;
  state: StoredRunState;
  workerId: string | null;
  /** A client asked the run to pause before its next step. */
  pauseRequested: boolean;
  /** Until when somebody watches the run's live view; null: nobody has. */
  watchEndsAt: Date | null;
}

type ClaimedRow = {
  id: string;
  owner: string;
  skill_id: string;
  inputs: string;
  secret_inputs: string | null;
  attempts: number | bigint;
  resume_from: string | null;
  rerun_of: string | null;
  rerun_own_inputs: boolean | number;
  active_ms: number | bigint;
  profile: string | null;
  profile_save: string | null;
  /** A Date on both flavours (direct-sql reads dates back as Dates). */
  created_at: Date | string;
  trace_parent: string | null;
  schedule_id: string | null;
  queued_until: Date | string | null;
  /** The skill's stored definition, read by the statement that named its version. */
  definition: string | null;
};

// The change-feed row is all a claim records of its change: endpoints are not told of `play`.
if (webhookEventOf("play") !== undefined) throw new Error("a claim would have to tell webhooks");

// OWNER_MAX_RUNNING unset: a bound no count reaches.
const NO_OWNER_LIMIT = 2 ** 31 - 1;

/**
 * Takes the fair queue's next run for `workerId` (→ play, lease until `leaseExpiresAt`): the
 * oldest queued run, whose limits have room, of the owner served longest ago
 * (docs/decisions/0042-fair-queue-round-robin.md); records `run_claimed` and its change
 * (docs/decisions/0022-leases-and-fencing.md). Null when no queued run may start.
 */
export async function claim(
  db: { direct: DirectSql; flavour: Flavour },
  workerId: string,
  now: Date,
  leaseExpiresAt: Date,
  ownerMaxRunning: number | null,
  /** An agent's claim: only client runs of this owner (agents' runs are never parked). */
  agent?: { owner: string; name: string },
): Promise<ClaimedRun | null> {
  if (agent === undefined) {
    const parked = await claimParkedRun(db, workerId, now, leaseExpiresAt);
    if (parked !== null) return parked;
  }
  const message =
    agent === undefined ? `claimed by worker ${workerId}` : `claimed by agent ${agent.name}`;
  const detail = agent === undefined ? { worker: workerId } : { agent: agent.name };
  const ownerLimit = ownerMaxRunning ?? NO_OWNER_LIMIT;
  const limits = agent === undefined ? [ownerLimit] : [ownerLimit, agent.owner];
  if (db.flavour === "postgres") {
    // Claims one at a time, so that the limits' counts include every claim before this one
    // (docs/decisions/0043-queue-limits-counted-at-claim.md).
    const rows = await db.direct.run(function* (): TransactionPlan<ClaimedRow[]> {
      yield* query(LOCK_CLAIMS, []);
      const claimed = yield* query<ClaimedRow>(agent ? AGENT_CLAIM_POSTGRES : CLAIM_POSTGRES, [
        ...[workerId, leaseExpiresAt, ...limits],
        ...[now, message, toJsonColumn(detail), now],
      ]);
      return claimed.rows;
    });
    const row = rows[0];
    return row === undefined ? null : claimedWithCalls(db.direct, row);
  }
  // One transaction for the claim and the reads of what the run executes: a read that fails
  // (SQLite busy under many worker processes) undoes the claim, instead of leaving the run held
  // and not executed until its lease ran out and it was taken again as a lost worker's run.
  return db.direct.run(function* (): TransactionPlan<ClaimedRun | null> {
    const { rows } = yield* query<ClaimedRow>(agent ? AGENT_CLAIM_SQLITE : CLAIM_SQLITE, [
      ...[workerId, leaseExpiresAt, ...limits],
    ]);
    const row = rows[0];
    if (row === undefined) return null;
    yield* query(MARK_SERVED, [row.owner]);
    const attempt = Number(row.attempts);
    yield* insertEvents([
      { runId: row.id, at: now, type: "run_claimed", attempt, message, data: detail },
    ]);
    yield* insertRunChange({ id: row.id, owner: row.owner }, now);
    const definition = storedDefinitionOf(row.definition);
    return claimedRun(row, definition, yield* calledSkills(row.owner, definition));
  });
}

/**
 * Takes a parked run that may go on, ahead of the queue (docs/decisions/0052-parking.md), and
 * records `run_claimed` and its change; null when none may.
 */
async function claimParkedRun(
  db: { direct: DirectSql; flavour: Flavour },
  workerId: string,
  now: Date,
  leaseExpiresAt: Date,
): Promise<ClaimedRun | null> {
  const lock = db.flavour === "postgres" ? "FOR UPDATE OF p SKIP LOCKED" : "";
  const message = `claimed by worker ${workerId} to go on from where it waited`;
  const rows = await db.direct.run(function* (): TransactionPlan<ClaimedRow[]> {
    const { rows } = yield* query<ClaimedRow>(claimParked(lock), [workerId, leaseExpiresAt, now]);
    const row = rows[0];
    if (row === undefined) return [];
    const attempt = Number(row.attempts);
    const detail = { worker: workerId, parked: true };
    yield* insertEvents([
      { runId: row.id, at: now, type: "run_claimed", attempt, message, data: detail },
    ]);
    yield* insertRunChange({ id: row.id, owner: row.owner }, now);
    return rows;
  });
  const row = rows[0];
  return row === undefined ? null : { ...(await claimedWithCalls(db.direct, row)), woken: true };
}

/**
 * A run claimed by a statement of its own, with the skills its calls reach read after. Most
 * skills call none. Should this read fail, the run stays claimed without being executed until its
 * lease runs out, and is then taken again as a lost worker's run.
 */
async function claimedWithCalls(direct: DirectSql, row: ClaimedRow): Promise<ClaimedRun> {
  const definition = storedDefinitionOf(row.definition);
  const called =
    skillCalls(definition).length === 0
      ? {}
      : await direct.run(() => calledSkills(row.owner, definition));
  return claimedRun(row, definition, called);
}

/** Extends to `until` the lease of every run in `runIds` that `workerId` still holds. */
export async function renewLeases(
  direct: DirectSql,
  workerId: string,
  runIds: readonly string[],
  until: Date,
): Promise<void> {
  if (runIds.length === 0) return;
  await direct.single(renewLeasesSql(runIds.length), [until, workerId, ...runIds]);
}

/** The current state and holder of each run, to learn of cancels and lost claims. */
export async function statesOf(
  direct: DirectSql,
  runIds: readonly string[],
): Promise<HeldRunState[]> {
  if (runIds.length === 0) return [];
  const rows = await direct.all<{
    id: string;
    state: string | null;
    worker_id: string | null;
    pause_requested: boolean | number;
    watch_ends_at: Date | null;
  }>(selectHeldStates(runIds.length), runIds);
  return rows.map((row) => ({
    id: row.id,
    state: row.state as StoredRunState,
    workerId: row.worker_id,
    // SQLite keeps a boolean as 0 or 1.
    pauseRequested: Boolean(row.pause_requested),
    watchEndsAt: row.watch_ends_at,
  }));
}

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
    resumeFrom: row.resume_from,
    rerunOf: row.rerun_of,
    // SQLite keeps a boolean as 0 or 1.
    rerunOwnInputs: Boolean(row.rerun_own_inputs),
    activeMs: Number(row.active_ms),
    woken: false,
    calledSkills,
    profile: row.profile === null ? null : { name: row.profile, save: profileSaveOf(row) },
    createdAt: dateOf(row.created_at),
    traceParent: row.trace_parent,
    scheduled: row.schedule_id !== null,
    queuedUntil: row.queued_until === null ? null : new Date(row.queued_until),
  };
}

function dateOf(value: ClaimedRow["created_at"]): Date {
  return value instanceof Date ? value : new Date(value);
}

function profileSaveOf(row: ClaimedRow): "on_success" | "always" | null {
  return row.profile_save === "on_success" || row.profile_save === "always"
    ? row.profile_save
    : null;
}

/**
 * The skills a definition reaches through `call`, read level by level. A skill named but not
 * stored is left out: the call fails when the run reaches it, saying so.
 */
function* calledSkills(
  owner: string,
  definition: unknown,
): TransactionPlan<Record<string, unknown>> {
  const found: Record<string, unknown> = {};
  let wanted = [...new Set(skillCalls(definition).map((call) => call.skill))];
  // Imports refuse cycles and the engine stops calls 8 deep; the bound only guards the read.
  for (let depth = 0; depth < MAX_CALL_DEPTH && wanted.length > 0; depth += 1) {
    const { rows } = yield* query<{ id: string; definition: string }>(selectSkills(wanted.length), [
      owner,
      ...wanted,
    ]);
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
