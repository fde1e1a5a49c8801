import type { Schedule, ScheduleOverlap } from "../domain/api-types.js";
import { ScheduleCron } from "./schedule-cron.js";
import { durationText } from "./schedule-timing.js";

/** A schedule's row (prisma/models.prisma, Schedule), as the repositories read it. */
export interface StoredSchedule {
  id: string;
  owner: string;
  skillId: string;
  /** JSON object; secret inputs' values `***`. */
  inputs: string;
  /** JSON object of the sealed secret inputs; null when none. */
  secretInputs: string | null;
  cron: string;
  timezone: string;
  overlap: string;
  catchupMs: number;
  jitterMs: number;
  paused: boolean;
  pausedReason: string | null;
  pauseAfterFailures: number | null;
  failuresInRow: number;
  nextTickAt: Date | null;
  fireAt: Date | null;
  lastRunId: string | null;
  bufferedTickAt: Date | null;
  tickSeq: number;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** The columns of a schedule as direct statements read them (FROM schedules). */
export const SCHEDULE_COLUMNS = `id, owner, skill_id, inputs, secret_inputs, cron, timezone,
  overlap, catchup_ms, jitter_ms, paused, paused_reason, pause_after_failures, failures_in_row,
  next_tick_at, fire_at, last_run_id, buffered_tick_at, tick_seq, version, created_at, updated_at`;

/** A row of SCHEDULE_COLUMNS. */
export interface ScheduleColumns {
  id: string;
  owner: string;
  skill_id: string;
  inputs: string;
  secret_inputs: string | null;
  cron: string;
  timezone: string;
  overlap: string;
  catchup_ms: number | string;
  jitter_ms: number | string;
  /** SQLite gives 0 or 1, PostgreSQL a boolean. */
  paused: boolean | number;
  paused_reason: string | null;
  pause_after_failures: number | string | null;
  failures_in_row: number | string;
  next_tick_at: Date | null;
  fire_at: Date | null;
  last_run_id: string | null;
  buffered_tick_at: Date | null;
  tick_seq: number | string;
  version: number | string;
  created_at: Date;
  updated_at: Date;
}

/** A row of SCHEDULE_COLUMNS as a StoredSchedule. */
export function storedScheduleOf(row: ScheduleColumns): StoredSchedule {
  return {
    id: row.id,
    owner: row.owner,
    skillId: row.skill_id,
    inputs: row.inputs,
    secretInputs: row.secret_inputs,
    cron: row.cron,
    timezone: row.timezone,
    overlap: row.overlap,
    catchupMs: Number(row.catchup_ms),
    jitterMs: Number(row.jitter_ms),
    paused: Boolean(row.paused),
    pausedReason: row.paused_reason,
    pauseAfterFailures: row.pause_after_failures === null ? null : Number(row.pause_after_failures),
    failuresInRow: Number(row.failures_in_row),
    nextTickAt: row.next_tick_at,
    fireAt: row.fire_at,
    lastRunId: row.last_run_id,
    bufferedTickAt: row.buffered_tick_at,
    tickSeq: Number(row.tick_seq),
    version: Number(row.version),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The cron of a stored schedule (checked when it was written). */
export function cronOf(schedule: Pick<StoredSchedule, "cron" | "timezone">): ScheduleCron {
  const parsed = ScheduleCron.parse(schedule.cron, schedule.timezone);
  if (!(parsed instanceof ScheduleCron)) {
    throw new Error(`a stored schedule's cron does not parse: ${parsed.problem}`);
  }
  return parsed;
}

/** A schedule as the API shows it at `now`: its next five times from then. */
export function toSchedule(schedule: StoredSchedule, now: Date): Schedule {
  return {
    id: schedule.id,
    skill_id: schedule.skillId,
    owner: schedule.owner,
    inputs: JSON.parse(schedule.inputs) as Record<string, unknown>,
    cron: schedule.cron,
    timezone: schedule.timezone,
    overlap: schedule.overlap as ScheduleOverlap,
    catchup: durationText(schedule.catchupMs),
    jitter: durationText(schedule.jitterMs),
    paused: schedule.paused,
    paused_reason: schedule.pausedReason as Schedule["paused_reason"],
    pause_after_failures: schedule.pauseAfterFailures,
    failures_in_row: schedule.failuresInRow,
    next_runs: cronOf(schedule).nextFormatted(now.getTime()),
    last_run_id: schedule.lastRunId,
    created_at: schedule.createdAt.toISOString(),
    updated_at: schedule.updatedAt.toISOString(),
  };
}
