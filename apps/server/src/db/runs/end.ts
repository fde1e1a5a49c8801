import { sourcesOf } from "../../domain/run-state-machine.js";
import type { Flavour } from "../database-url.js";
import { type DirectSql, query, type TransactionPlan } from "../direct-sql.js";
import { toJsonColumn } from "../json-column.js";
import type { NewRunEvent } from "../repositories/run-events.js";
import { stateInSql } from "../repositories/run-state-filter.js";
import { recordScheduledEnding } from "../schedules/run-endings.js";
import { insertRunChange, recordRunChange } from "./changes.js";
import { checkpointValues, insertCheckpoints, type StoredCheckpoint } from "./checkpoints.js";
import { eventValues, type Holder, insertEvents } from "./record.js";
import { endHeldRunAtOnce, endHeldRunCountingEndpoints } from "./sql/end.js";

/** The ending a worker writes for a run it holds. */
export type WorkerEnding = "finish" | "reset" | "timeout";

// The most events PostgreSQL's ending writes in its one statement; a longer step log left to
// write goes the way of the plan.
const EVENTS_IN_ONE_ENDING = 16;

/**
 * Ends a run the worker holds in `to` with its final data, recording `event` after `earlier`
 * (the step log's last events, which the ending's transaction writes instead of one of their
 * own), its change and its webhook deliveries. False when the run was no longer the worker's to
 * end (cancelled meanwhile, or recovered from it): then nothing was written.
 */
export async function end(
  db: { direct: DirectSql; flavour: Flavour },
  holder: Holder,
  to: WorkerEnding,
  data: Record<string, unknown>,
  event: NewRunEvent,
  earlier: readonly NewRunEvent[] = [],
  checkpoints: readonly StoredCheckpoint[] = [],
): Promise<boolean> {
  const sources = stateInSql(sourcesOf(to));
  const { at } = event;
  const events = [...earlier, event];
  const ending = [to, at, toJsonColumn(data), holder.runId, holder.workerId, ...sources.params];
  if (db.flavour === "postgres" && events.length <= EVENTS_IN_ONE_ENDING) {
    // The common case in one statement, one round trip
    // (docs/decisions/0010-one-statement-per-write-on-postgresql.md); what it leaves (the run
    // is no longer held, or its owner has endpoints to tell) the plan below sorts out.
    const { rows } = await db.direct.single(
      endHeldRunAtOnce(sources.sql, events.length, checkpoints.length),
      [
        ...ending,
        ...events.flatMap(eventValues),
        ...checkpoints.flatMap((checkpoint) => checkpointValues(holder.runId, checkpoint)),
        ...(checkpoints.length === 0
          ? []
          : [holder.runId, checkpoints.at(-1)?.seq ?? 0, ...checkpoints.map((c) => c.label)]),
        ...[holder.runId, at],
      ],
    );
    if (rows.length === 1) return true;
  }
  return db.direct.run(function* (): TransactionPlan<boolean> {
    const { rows } = yield* query<{
      owner: string;
      schedule_id: string | null;
      endpoints: number | bigint | string;
    }>(endHeldRunCountingEndpoints(sources.sql), ending);
    const row = rows[0];
    if (row === undefined) return false;
    yield* insertEvents(events);
    yield* insertCheckpoints(holder.runId, checkpoints);
    const run = { id: holder.runId, owner: row.owner };
    if (Number(row.endpoints) === 0) yield* insertRunChange(run, at);
    else yield* recordRunChange(run, to, at);
    yield* recordScheduledEnding({ ...run, scheduleId: row.schedule_id }, to, at);
    return true;
  });
}
