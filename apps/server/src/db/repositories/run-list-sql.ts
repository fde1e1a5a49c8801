import type { StoredRunState } from "../../domain/run-state-machine.js";
import type { SqlValue } from "../direct-sql.js";
import type { RunRow } from "./run-session.js";
import type { RunListQuery } from "./runs.js";
import { WAITING_COLUMNS, type WaitingColumns, waitingForOf } from "./waiting-for.js";

/**
 * The columns of a run the API shows, as the direct reads select them (FROM the table `runs`),
 * with what a queued run waits for.
 */
export const RUN_COLUMNS = `id, owner, skill_id, name, state, environment, inputs, data, created_at,
  start_time, end_time, skill_version, rerun_of, rerun_step, schedule_id, scheduled_at,
  ${WAITING_COLUMNS}`;

/** A row of RUN_COLUMNS. */
export interface RunColumns extends WaitingColumns {
  id: string;
  owner: string;
  skill_id: string;
  name: string | null;
  state: string | null;
  environment: string | null;
  inputs: string;
  data: string | null;
  created_at: Date;
  start_time: Date;
  end_time: Date | null;
  skill_version: string | null;
  rerun_of: string | null;
  rerun_step: string | null;
  schedule_id: string | null;
  scheduled_at: Date | null;
}

/**
 * A row of RUN_COLUMNS as the repositories' RunRow; `ownerMaxRunning` (OWNER_MAX_RUNNING) tells
 * a queued run waiting for its owner's limit.
 */
export function runRowOf(row: RunColumns, ownerMaxRunning: number | null = null): RunRow {
  return {
    id: row.id,
    owner: row.owner,
    skillId: row.skill_id,
    name: row.name,
    state: row.state,
    environment: row.environment,
    inputs: row.inputs,
    data: row.data,
    createdAt: row.created_at,
    startTime: row.start_time,
    endTime: row.end_time,
    skillVersion: row.skill_version,
    rerunOf: row.rerun_of,
    rerunStep: row.rerun_step,
    scheduleId: row.schedule_id,
    scheduledAt: row.scheduled_at,
    waitingFor: waitingForOf(row.state, row, ownerMaxRunning),
  };
}

const NEWEST_FIRST = "ORDER BY created_at DESC, id DESC";

/**
 * One page of an owner's runs (one row more than `limit`, which tells whether another follows),
 * as SQL both flavours read alike and answer from an index without sorting, however many runs
 * there are:
 *
 * - no state filter: the range of (owner[, skill_id], created_at, id) after the cursor;
 * - one state: the same in (owner[, skill_id], state, created_at, id);
 * - several states: one such range per state, each cut at the page's length, merged. An
 *   `IN (…)` over one index would read every run in those states to sort them.
 */
export function runListSql(
  owner: string,
  query: RunListQuery,
): { sql: string; params: SqlValue[] } {
  const states = query.states === undefined ? [undefined] : uniqueStates(query.states);
  const params: SqlValue[] = [];
  const arms = states.map((state) => {
    const where = ["owner = ?"];
    params.push(owner);
    if (query.skillId !== undefined) {
      where.push("skill_id = ?");
      params.push(query.skillId);
    }
    if (state === null) where.push("state IS NULL");
    else if (state !== undefined) {
      where.push("state = ?");
      params.push(state);
    }
    if (query.after !== undefined) {
      where.push("(created_at, id) < (?, ?)");
      params.push(query.after.createdAt, query.after.id);
    }
    params.push(query.limit + 1);
    // With one state the order may as well start with it: then it is the order of the state's
    // index, which PostgreSQL's planner otherwise passes over for the skill's when it expects the
    // state to be common (and then reads every run of a skill that has none in that state).
    const order = state === undefined ? NEWEST_FIRST : `ORDER BY state, created_at DESC, id DESC`;
    return `SELECT ${RUN_COLUMNS} FROM runs WHERE ${where.join(" AND ")} ${order} LIMIT ?`;
  });
  if (arms.length === 1) return { sql: arms[0] as string, params };
  params.push(query.limit + 1);
  const merged = arms.map((arm, i) => `SELECT * FROM (${arm}) AS s${i}`).join(" UNION ALL ");
  return { sql: `SELECT * FROM (${merged}) AS page ${NEWEST_FIRST} LIMIT ?`, params };
}

function uniqueStates(states: readonly StoredRunState[]): StoredRunState[] {
  return [...new Set(states)];
}
