import type { components } from "@skillrun/contract";
import type { Checkpoint } from "@skillrun/engine";
import type { Input, RunSession, RunState } from "../../domain/api-types.js";
import type { Clock } from "../../domain/clock.js";
import type { Cursor } from "../../domain/cursor.js";
import { IDEMPOTENCY_KEY_TTL_MS, requestIdentity } from "../../domain/idempotency.js";
import { newRunId } from "../../domain/ids.js";
import { NO_QUEUE_LIMITS, type QueueLimits } from "../../domain/queue-limits.js";
import type { StoredRunState } from "../../domain/run-state-machine.js";
import { sealCheckpoint } from "../../secrets/run-secrets.js";
import type { SecretBox } from "../../secrets/secret-box.js";
import { sealSecretInputs } from "../../secrets/secret-inputs.js";
import type { PrismaClient } from "../database.js";
import type { DirectSql } from "../direct-sql.js";
import { toJsonColumn } from "../json-column.js";
import { cancel } from "../runs/cancel.js";
import { checkpointLabels, type KeptCheckpoint, readCheckpoint } from "../runs/checkpoints.js";
import type { RunCommits } from "../runs/commit.js";
import { create, createOnce, type NewRunRow } from "../runs/create.js";
import { createRerun } from "../runs/rerun.js";
import { COUNT_ALL_QUEUED, COUNT_QUEUED } from "../runs/sql/create.js";
import { keysetPage } from "./keyset-page.js";
import { RUN_COLUMNS, type RunColumns, runListSql, runRowOf } from "./run-list-sql.js";
import { toRunSession } from "./run-session.js";
import { type RunSummary, readRunSummary } from "./run-summary.js";
import { WAITING_OF_NEW, type WaitingColumns, waitingForOf } from "./waiting-for.js";

export interface RunListQuery {
  skillId?: string;
  /** Only runs in one of these states; null stands for queued runs. */
  states?: StoredRunState[];
  limit: number;
  after?: Cursor;
}

type RunSkillRequest = components["schemas"]["RunSkillRequest"];

/** A run to queue: whose, of which skill, with its checked inputs. */
export interface NewRun {
  owner: string;
  skill: { id: string; name: string; inputs?: readonly Input[] };
  inputs: Record<string, unknown>;
  /** The skill's `concurrency`, with its `concurrency_key` rendered against the inputs. */
  concurrency?: { limit: number; key: string | null } | null;
  /** The skill's browser profile, its name rendered against the inputs (see RunProfileChoice). */
  profile?: RunProfileChoice | null;
  /** The W3C traceparent of the request queuing it (tracing on), which its span follows. */
  traceParent?: string | null;
  /**
   * `client`: the run waits for an agent of its owner, at most `clientTimeoutMs` (its skill's
   * time limit) from now. Absent: `cloud`.
   */
  client?: { timeoutMs: number } | null;
}

/** A run's browser profile: its name, and when the run saves it (null: it only reads it). */
export interface RunProfileChoice {
  name: string;
  save: "on_success" | "always" | null;
}

/** An `Idempotency-Key` and the request it came with. */
export interface Idempotency {
  key: string;
  request: RunSkillRequest;
}

/**
 * What a request with an `Idempotency-Key` comes to: a new run, the run an earlier request with
 * the key and the same body started, or nothing because the key came with another body.
 */
export type KeyedStart =
  | { outcome: "started"; run: RunSession }
  | { outcome: "replayed"; run: RunSession }
  | { outcome: "reused" };

// How often a process deletes expired idempotency keys, at most.
const KEY_SWEEP_INTERVAL_MS = 60_000;

/** Runs, always read and changed within one owner. */
export class RunRepository {
  /** Where the runs this process cancels are counted (the metrics), once the runtime has them. */
  endings: { runEnded(state: "cancel"): void } | undefined;

  /** When this process may next delete expired idempotency keys (epoch ms of the clock). */
  private nextKeySweep = 0;

  constructor(
    private readonly prisma: PrismaClient,
    /** The hot reads (a run, a page of runs): straight to the driver. */
    private readonly direct: DirectSql,
    private readonly clock: Clock,
    /** Writes that queue or cancel runs, told to the workers once committed. */
    private readonly commits: RunCommits,
    /** Seals the values of secret inputs. */
    private readonly box: SecretBox,
    /** What a queued run may wait for, and how many runs an owner may queue. */
    private readonly limits: QueueLimits = NO_QUEUE_LIMITS,
  ) {}

  /** Whether the owner has OWNER_MAX_QUEUED runs queued already (never without the limit). */
  async queueFull(owner: string): Promise<boolean> {
    const max = this.limits.ownerMaxQueued;
    if (max === null) return false;
    const [row] = await this.direct.all<{ queued: number | string }>(COUNT_QUEUED, [owner]);
    return Number(row?.queued ?? 0) >= max;
  }

  /** How many runs are queued, every owner's: the queue gauge of the metrics. */
  async countAllQueued(): Promise<number> {
    const [row] = await this.direct.all<{ queued: number | string }>(COUNT_ALL_QUEUED, []);
    return Number(row?.queued ?? 0);
  }

  /**
   * Queues a run: state null, accepted (and started) now; the workers are told. The values of
   * the inputs the skill declares secret are stored sealed, and as `***` in the run's inputs.
   */
  async create(input: NewRun): Promise<RunSession> {
    const row = this.newRow(newRunId(), this.clock.now(), input);
    await create(this.commits, row);
    return this.answerQueued(row);
  }

  /**
   * Queues a rerun of the owner's ended run `of.runId` that starts at its checkpoint `kept`
   * (sealed for the original, sealed anew for the rerun): see POST /run/{id}/rerun.
   */
  async createRerun(
    input: NewRun,
    of: { runId: string; kept: KeptCheckpoint & { sealed: string }; ownInputs: boolean },
  ): Promise<RunSession> {
    const id = newRunId();
    const row = this.newRow(id, this.clock.now(), input);
    const json = this.box.open(of.kept.sealed, ["checkpoint", of.runId]);
    const { steps_run: seq, path } = JSON.parse(json) as Checkpoint;
    const checkpoint = {
      label: of.kept.label,
      seq,
      topLevel: path.length === 1,
      sealed: sealCheckpoint(this.box, id, json),
      bytes: of.kept.bytes,
      at: row.createdAt,
    };
    const step = of.kept.label;
    await createRerun(this.commits, row, {
      runId: of.runId,
      step,
      checkpoint,
      ownInputs: of.ownInputs,
    });
    return { ...(await this.answerQueued(row)), rerun_of: { run_id: of.runId, step } };
  }

  /** A run's checkpoint before step `label`, or its latest when `label` is null. */
  checkpoint(runId: string, label: string | null): Promise<KeptCheckpoint | null> {
    return readCheckpoint(this.direct, runId, label);
  }

  /** The labels of the steps a run kept checkpoints before, oldest first. */
  checkpointLabels(runId: string): Promise<string[]> {
    return checkpointLabels(this.direct, runId);
  }

  /** A run just queued as the API shows it, with what it waits for as it stands now. */
  private async answerQueued(row: NewRunRow): Promise<RunSession> {
    const [counts] = await this.direct.all<WaitingColumns>(WAITING_OF_NEW, [
      ...[row.owner, row.skillId, row.concurrencyKey, row.profile],
    ]);
    const columns = {
      environment: row.environment,
      concurrency_limit: row.concurrencyLimit,
      concurrency_key: row.concurrencyKey,
      owner_holding: counts?.owner_holding ?? 0,
      limit_holding: counts?.limit_holding ?? 0,
      // Only a run that saves its profile waits for one.
      profile_holding: row.profileSave === null ? null : (counts?.profile_holding ?? 0),
    };
    const waitingFor = waitingForOf(null, columns, this.limits.ownerMaxRunning);
    return toRunSession({ ...queuedRun(row), waitingFor });
  }

  /**
   * Queues a run as `create` does, unless the owner's `key` already started one within its 24
   * hours: then nothing is written and the answer is that run (the same request) or `reused`
   * (another request). The key row is written first and with the run, in one transaction, so
   * that of concurrent requests with one key the primary key lets exactly one start a run; the
   * others wait for it to commit and answer its run.
   */
  async createOnce(input: NewRun, idempotency: Idempotency): Promise<KeyedStart> {
    const now = this.clock.now();
    await this.sweepExpiredKeys(now);
    const requestHash = this.requestHashOf(input.owner, idempotency);
    const cutoff = new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_MS);
    // A second try only when the live key was swept between the two statements (see below).
    for (let attempt = 1; ; attempt++) {
      const row = this.newRow(newRunId(), now, input);
      const written = await createOnce(this.commits, row, {
        key: idempotency.key,
        requestHash,
        cutoff,
      });
      if (written.created) return { outcome: "started", run: await this.answerQueued(row) };
      if (written.earlier !== null) {
        return this.answerEarlier(input.owner, written.earlier, requestHash);
      }
      // The key was live at the INSERT and gone at the read: another process's sweep, its clock
      // a moment ahead, removed it. It is free now.
      if (attempt === 2) throw new Error(`idempotency key of ${input.owner} keeps vanishing`);
    }
  }

  /**
   * What a live `key` of the owner answers for this request (its run, or `reused`); null when the
   * key is new or expired, and the request should go on to `createOnce`.
   */
  async replay(owner: string, idempotency: Idempotency): Promise<KeyedStart | null> {
    const row = await this.prisma.idempotencyKey.findUnique({
      where: { owner_key: { owner, key: idempotency.key } },
    });
    const cutoff = this.clock.now().getTime() - IDEMPOTENCY_KEY_TTL_MS;
    if (row === null || row.createdAt.getTime() <= cutoff) return null;
    return this.answerEarlier(owner, row, this.requestHashOf(owner, idempotency));
  }

  private async answerEarlier(
    owner: string,
    earlier: { runId: string; requestHash: string },
    requestHash: string,
  ): Promise<KeyedStart> {
    if (earlier.requestHash !== requestHash) return { outcome: "reused" };
    const run = await this.get(owner, earlier.runId);
    // The key row is written with its run and runs are never deleted.
    if (run === null) throw new Error(`the run ${earlier.runId} of an idempotency key is missing`);
    return { outcome: "replayed", run };
  }

  /** The request's digest for the owner and key: secret inputs' values are in it, undisclosed. */
  private requestHashOf(owner: string, idempotency: Idempotency): string {
    return this.box.digest(requestIdentity(idempotency.request), [
      "idempotency_key",
      owner,
      idempotency.key,
    ]);
  }

  /**
   * Deletes every expired key, at most once per KEY_SWEEP_INTERVAL_MS of this process: expired
   * keys are ignored anyway; this keeps them from piling up.
   */
  private async sweepExpiredKeys(now: Date): Promise<void> {
    if (now.getTime() < this.nextKeySweep) return;
    this.nextKeySweep = now.getTime() + KEY_SWEEP_INTERVAL_MS;
    await this.prisma.idempotencyKey.deleteMany({
      where: { createdAt: { lte: new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_MS) } },
    });
  }

  /**
   * The row of a run to queue now, secret inputs sealed, for a write of its own (a schedule's
   * tick queues its run in the transaction that claims the tick).
   */
  rowFor(input: NewRun): NewRunRow {
    return this.newRow(newRunId(), this.clock.now(), input);
  }

  /** The row of a queued run; secret inputs' values sealed, `***` in its inputs. */
  private newRow(id: string, now: Date, input: NewRun): NewRunRow {
    return newRunRow(this.box, id, now, input);
  }

  async get(owner: string, id: string): Promise<RunSession | null> {
    const [row] = await this.direct.all<RunColumns>(
      `SELECT ${RUN_COLUMNS} FROM runs WHERE id = ? AND owner = ?`,
      [id, owner],
    );
    return row ? toRunSession(runRowOf(row, this.limits.ownerMaxRunning)) : null;
  }

  /**
   * One page of runs, newest first (created_at desc, id desc). `next` is the position after
   * the page when more runs follow it.
   */
  async list(owner: string, query: RunListQuery): Promise<{ runs: RunSession[]; next?: Cursor }> {
    const { sql, params } = runListSql(owner, query);
    const rows = (await this.direct.all<RunColumns>(sql, params)).map((row) =>
      runRowOf(row, this.limits.ownerMaxRunning),
    );
    const { page, last } = keysetPage(rows, query.limit);
    return {
      runs: page.map(toRunSession),
      ...(last && { next: { createdAt: last.createdAt, id: last.id } }),
    };
  }

  /**
   * The owner's runs created at or after `since` counted by state, the skills failing most
   * among them, and the owner's queue now (bounded reads, see run-summary.ts).
   */
  summary(owner: string, since: Date): Promise<RunSummary> {
    return readRunSummary(this.direct, owner, since, this.clock.now());
  }

  /**
   * Cancels a run that has not ended and returns its state after the call; null when the
   * owner has no such run. Idempotent: a terminal run keeps (and reports) its state. A worker
   * executing the run is told to stop it.
   */
  async cancel(owner: string, id: string): Promise<RunState | null> {
    const { state, cancelled } = await cancel(this.commits, { id, owner }, this.clock.now());
    // Counted where it is written: the worker that stops the run does not count it again.
    if (cancelled) this.endings?.runEnded("cancel");
    return state;
  }
}

/** The row of a run to queue (`input`), its secret inputs' values sealed, `***` in its inputs. */
export function newRunRow(box: SecretBox, id: string, now: Date, input: NewRun): NewRunRow {
  const { inputs, sealed } = sealSecretInputs(box, id, input.skill.inputs ?? [], input.inputs);
  return {
    id,
    owner: input.owner,
    skillId: input.skill.id,
    name: input.skill.name,
    inputs: toJsonColumn(inputs),
    secretInputs: sealed === null ? null : toJsonColumn(sealed),
    createdAt: now,
    startTime: now,
    concurrencyLimit: input.concurrency?.limit ?? null,
    concurrencyKey: input.concurrency?.key ?? null,
    profile: input.profile?.name ?? null,
    profileSave: input.profile?.save ?? null,
    traceParent: input.traceParent ?? null,
    environment: input.client ? "client" : "cloud",
    queuedUntil: input.client ? new Date(now.getTime() + input.client.timeoutMs) : null,
  };
}

/** A run as `create` queued it. */
function queuedRun(row: NewRunRow) {
  return {
    ...row,
    state: null,
    data: null,
    endTime: null,
    skillVersion: null,
  };
}
