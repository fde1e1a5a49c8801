import type { RunSession, RunState } from "../../domain/api-types.js";
import { fromJsonColumn } from "../json-column.js";
import type { WaitingFor } from "./waiting-for.js";

/** The columns of a run the API shows. */
export type RunRow = {
  id: string;
  owner: string;
  skillId: string;
  name: string | null;
  state: string | null;
  environment: string | null;
  inputs: string;
  data: string | null;
  createdAt: Date;
  startTime: Date;
  endTime: Date | null;
  skillVersion: string | null;
  /** The run this one reruns, and the step it started at; null (or absent) otherwise. */
  rerunOf?: string | null;
  rerunStep?: string | null;
  /** The schedule that started the run, and the time its cron named; null (or absent) otherwise. */
  scheduleId?: string | null;
  scheduledAt?: Date | null;
  /** What a queued run waits for; null (or absent) for one that is not queued. */
  waitingFor?: WaitingFor | null;
};

/** A run as the API shows it, without `video_url` (which depends on the server asked). */
export function toRunSession(row: RunRow): RunSession {
  return {
    id: row.id,
    skill_id: row.skillId,
    owner: row.owner,
    name: row.name,
    created_at: row.createdAt.toISOString(),
    environment: row.environment as RunSession["environment"],
    start_time: row.startTime.toISOString(),
    end_time: row.endTime?.toISOString() ?? null,
    state: row.state as RunState | null,
    inputs: fromJsonColumn<Record<string, unknown>>(row.inputs),
    data: fromJsonColumn<Record<string, unknown>>(row.data),
    x_skill_version: row.skillVersion,
    rerun_of: row.rerunOf == null ? null : { run_id: row.rerunOf, step: row.rerunStep ?? "" },
    schedule_id: row.scheduleId ?? null,
    scheduled_for: row.scheduledAt?.toISOString() ?? null,
    waiting_for: row.waitingFor ?? null,
  };
}
