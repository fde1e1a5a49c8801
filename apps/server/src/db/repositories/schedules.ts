import type { Input, ScheduleTick } from "../../domain/api-types.js";
import type { Clock } from "../../domain/clock.js";
import { isTerminal, TERMINAL_STATES } from "../../domain/run-state-machine.js";
import {
  SCHEDULE_COLUMNS,
  type ScheduleColumns,
  type StoredSchedule,
  storedScheduleOf,
} from "../../schedules/stored-schedule.js";
import { formatInZone } from "../../schedules/zoned-time.js";
import { openScheduleInputs, sealScheduleInputs } from "../../secrets/schedule-inputs.js";
import type { SecretBox } from "../../secrets/secret-box.js";
import type { PrismaClient } from "../database.js";
import { type DirectSql, query, type SqlValue, type TransactionPlan } from "../direct-sql.js";
import { fromJsonColumn, toJsonColumn } from "../json-column.js";
import type { RunCommits } from "../runs/commit.js";
import { type TickWrite, writeTick } from "../schedules/ticks.js";

/** A schedule to write: its row but for what the database counts. */
export type NewSchedule = Omit<
  StoredSchedule,
  "failuresInRow" | "lastRunId" | "bufferedTickAt" | "tickSeq" | "version" | "updatedAt"
>;

/** The columns a client's change may set (PATCH), with what resuming or pausing resets. */
export type ScheduleChange = Partial<
  Pick<
    StoredSchedule,
    | "inputs"
    | "secretInputs"
    | "cron"
    | "timezone"
    | "overlap"
    | "catchupMs"
    | "jitterMs"
    | "paused"
    | "pausedReason"
    | "pauseAfterFailures"
    | "failuresInRow"
    | "nextTickAt"
    | "fireAt"
    | "bufferedTickAt"
  >
>;

const CHANGE_COLUMNS: Record<keyof ScheduleChange, string> = {
  inputs: "inputs",
  secretInputs: "secret_inputs",
  cron: "cron",
  timezone: "timezone",
  overlap: "overlap",
  catchupMs: "catchup_ms",
  jitterMs: "jitter_ms",
  paused: "paused",
  pausedReason: "paused_reason",
  pauseAfterFailures: "pause_after_failures",
  failuresInRow: "failures_in_row",
  nextTickAt: "next_tick_at",
  fireAt: "fire_at",
  bufferedTickAt: "buffered_tick_at",
};

const ENDED = TERMINAL_STATES.map((state) => `'${state}'`).join(", ");

/** Active schedules whose tick is due (now, how many), the longest due first. */
const SELECT_DUE = `SELECT ${SCHEDULE_COLUMNS} FROM schedules
  WHERE paused = false AND fire_at <= ? ORDER BY fire_at LIMIT ?`;

/** Active schedules holding a buffered tick whose last run has ended (how many). */
const SELECT_BUFFERED_READY = `SELECT ${SCHEDULE_COLUMNS} FROM schedules
  WHERE buffered_tick_at IS NOT NULL AND paused = false
    AND EXISTS (SELECT 1 FROM runs WHERE runs.id = schedules.last_run_id
      AND runs.state IN (${ENDED}))
  LIMIT ?`;

const DROP_BUFFERED_TICK = `UPDATE schedule_ticks SET outcome = 'skipped', reason = 'paused',
    message = 'the schedule was paused before the last run ended', decided_at = ?
  WHERE schedule_id = ? AND outcome = 'buffered'`;

type TickRow = {
  tickAt: Date;
  decidedAt: Date;
  outcome: string;
  runId: string | null;
  reason: string | null;
  message: string | null;
  manual: boolean;
};

function toTick(zone: string, row: TickRow): ScheduleTick {
  return {
    scheduled_for: formatInZone(zone, row.tickAt.getTime()),
    at: row.decidedAt.toISOString(),
    outcome: row.outcome as ScheduleTick["outcome"],
    run_id: row.runId,
    reason: row.reason as ScheduleTick["reason"],
    message: row.message,
    manual: row.manual,
  };
}

/** Schedules and their ticks, always within one owner for the API; the scheduler's reads too. */
export class ScheduleRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly direct: DirectSql,
    private readonly clock: Clock,
    /** Ticks queue runs, told to the workers once committed. */
    private readonly commits: RunCommits,
    /** Seals the values of secret inputs, for the schedule only. */
    private readonly box: SecretBox,
    /** How many schedules an owner may have (SCHEDULES_PER_OWNER). */
    readonly maxPerOwner: number,
  ) {}

  /** Inputs as a schedule stores them: secret values sealed for it, `***` in `inputs`. */
  sealInputs(
    scheduleId: string,
    declared: readonly Input[],
    values: Record<string, unknown>,
  ): { inputs: string; secretInputs: string | null } {
    const { inputs, sealed } = sealScheduleInputs(this.box, scheduleId, declared, values);
    return {
      inputs: toJsonColumn(inputs),
      secretInputs: sealed === null ? null : toJsonColumn(sealed),
    };
  }

  /** A schedule's inputs in the clear, for a run it starts (sealed anew for the run). */
  openInputs(schedule: StoredSchedule): Record<string, unknown> {
    return openScheduleInputs(
      this.box,
      schedule.id,
      fromJsonColumn<Record<string, unknown>>(schedule.inputs),
      fromJsonColumn<Record<string, string>>(schedule.secretInputs),
    );
  }

  /**
   * Writes a new schedule; null when the owner has `maxPerOwner` already (counted before the
   * write, so schedules created at the same moment may pass it by a few).
   */
  async create(schedule: NewSchedule): Promise<StoredSchedule | null> {
    const count = await this.prisma.schedule.count({ where: { owner: schedule.owner } });
    if (count >= this.maxPerOwner) return null;
    return this.prisma.schedule.create({
      data: { ...schedule, updatedAt: schedule.createdAt },
    });
  }

  /** The owner's schedules, oldest first. */
  list(owner: string): Promise<StoredSchedule[]> {
    return this.prisma.schedule.findMany({
      where: { owner },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
  }

  get(owner: string, id: string): Promise<StoredSchedule | null> {
    return this.prisma.schedule.findFirst({ where: { owner, id } });
  }

  /**
   * Applies a client's change to the owner's schedule as it was at `version`; false when the
   * schedule moved on meanwhile (a tick, another change) or is gone. Pausing drops a buffered
   * tick, in the same transaction.
   */
  update(owner: string, id: string, version: number, change: ScheduleChange): Promise<boolean> {
    const now = this.clock.now();
    return this.direct.run(function* (): TransactionPlan<boolean> {
      const sets = ["version = version + 1", "updated_at = ?"];
      const params: SqlValue[] = [now];
      for (const [key, value] of Object.entries(change) as [keyof ScheduleChange, unknown][]) {
        if (value === undefined) continue;
        const column = CHANGE_COLUMNS[key];
        if (typeof value === "boolean") {
          sets.push(`${column} = (? = 1)`);
          params.push(value ? 1 : 0);
        } else {
          sets.push(`${column} = ?`);
          params.push(value as SqlValue);
        }
      }
      const { changes } = yield* query(
        `UPDATE schedules SET ${sets.join(", ")} WHERE id = ? AND owner = ? AND version = ?`,
        [...params, id, owner, version],
      );
      if (changes !== 1) return false;
      if (change.paused === true) yield* query(DROP_BUFFERED_TICK, [now, id]);
      return true;
    });
  }

  /** Deletes the owner's schedule and its ticks; false when there was none. Its runs stay. */
  async delete(owner: string, id: string): Promise<boolean> {
    const { count } = await this.prisma.schedule.deleteMany({ where: { owner, id } });
    return count === 1;
  }

  /** The schedule's newest `limit` ticks; null when it is not the owner's. */
  async ticks(owner: string, id: string, limit: number): Promise<ScheduleTick[] | null> {
    const schedule = await this.prisma.schedule.findFirst({
      where: { owner, id },
      select: { timezone: true },
    });
    if (schedule === null) return null;
    const rows = await this.prisma.scheduleTick.findMany({
      where: { scheduleId: id },
      orderBy: { seq: "desc" },
      take: limit,
    });
    return rows.map((row) => toTick(schedule.timezone, row));
  }

  /** Active schedules whose tick is due at `now`, at most `limit`, the longest due first. */
  async due(now: Date, limit: number): Promise<StoredSchedule[]> {
    const rows = await this.direct.all<ScheduleColumns>(SELECT_DUE, [now, limit]);
    return rows.map(storedScheduleOf);
  }

  /** Active schedules holding a buffered tick whose last run has ended, at most `limit`. */
  async bufferedReady(limit: number): Promise<StoredSchedule[]> {
    const rows = await this.direct.all<ScheduleColumns>(SELECT_BUFFERED_READY, [limit]);
    return rows.map(storedScheduleOf);
  }

  /** Whether a run has not ended (queued, running, paused); a run that is gone has ended. */
  async isOpen(runId: string): Promise<boolean> {
    const [row] = await this.direct.all<{ state: string | null }>(
      "SELECT state FROM runs WHERE id = ?",
      [runId],
    );
    return row !== undefined && !isTerminal(row.state);
  }

  /** Writes a tick (db/schedules/ticks.ts); false when the schedule had moved on. */
  writeTick(write: TickWrite): Promise<boolean> {
    return writeTick(this.commits, write);
  }
}
