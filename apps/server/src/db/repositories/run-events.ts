import type { RunEvent } from "../../domain/api-types.js";
import { isTerminal, type StoredRunState } from "../../domain/run-state-machine.js";
import type { PrismaClient } from "../database.js";
import { fromJsonColumn, toJsonColumn } from "../json-column.js";
import { keysetPage } from "./keyset-page.js";

/** An event as the worker writes it; the database gives it its id. */
export interface NewRunEvent {
  runId: string;
  at: Date;
  type: RunEvent["type"];
  /** The engine's StepRef of the step the event is about. */
  step?: { index: number; id?: string; kind: string; label: string };
  attempt?: number;
  durationMs?: number;
  level?: NonNullable<RunEvent["level"]>;
  message?: string;
  data?: Record<string, unknown>;
  /** What the step acted on or made, in a few words (the API's `detail`). */
  detail?: string;
  /** The run file the event names: a failed browser step's screenshot. */
  file?: string;
  /** Where in the run's video the event happened, in ms from its start. */
  videoOffsetMs?: number;
}

type RunEventRow = {
  id: number;
  runId: string;
  at: Date;
  type: string;
  stepIndex: number | null;
  stepId: string | null;
  stepKind: string | null;
  stepLabel: string | null;
  attempt: number | null;
  durationMs: number | null;
  level: string | null;
  message: string | null;
  detail: string | null;
  stepDetail: string | null;
  file: string | null;
  videoOffsetMs: number | null;
};

/** The columns of an event as the step log stores them (db/runs/record.ts writes them). */
export function toRunEventRow(event: NewRunEvent): Omit<RunEventRow, "id"> {
  return {
    runId: event.runId,
    at: event.at,
    type: event.type,
    stepIndex: event.step?.index ?? null,
    stepId: event.step?.id ?? null,
    stepKind: event.step?.kind ?? null,
    stepLabel: event.step?.label ?? null,
    attempt: event.attempt ?? null,
    durationMs: event.durationMs ?? null,
    level: event.level ?? null,
    message: event.message ?? null,
    detail: event.data === undefined ? null : toJsonColumn(event.data),
    stepDetail: event.detail ?? null,
    file: event.file ?? null,
    videoOffsetMs: event.videoOffsetMs ?? null,
  };
}

function fromRunEventRow(row: RunEventRow): RunEvent {
  // The step's columns are written together (toRunEventRow), so one tells whether there is a step.
  const step =
    row.stepIndex === null || row.stepKind === null || row.stepLabel === null
      ? null
      : { index: row.stepIndex, id: row.stepId, kind: row.stepKind, label: row.stepLabel };
  return {
    id: row.id,
    run_id: row.runId,
    at: row.at.toISOString(),
    type: row.type as RunEvent["type"],
    step,
    attempt: row.attempt,
    duration_ms: row.durationMs,
    level: row.level as RunEvent["level"],
    message: row.message,
    data: fromJsonColumn<Record<string, unknown>>(row.detail),
    video_offset_ms: row.videoOffsetMs,
    detail: row.stepDetail,
    file: row.file,
  };
}

/** The step log of runs. */
export class RunEventRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /**
   * One page of the owner's run's events, oldest first, after the event id `after`; null when
   * the owner has no such run. `next` is the last id of the page when more events follow it.
   */
  async list(
    owner: string,
    runId: string,
    query: { limit: number; after?: number },
  ): Promise<{ events: RunEvent[]; next?: number } | null> {
    const run = await this.prisma.run.findFirst({
      where: { id: runId, owner },
      select: { id: true },
    });
    if (!run) return null;
    const rows = await this.prisma.runEvent.findMany({
      where: { runId, ...(query.after !== undefined && { id: { gt: query.after } }) },
      orderBy: { id: "asc" },
      // One more than the page tells whether another page follows.
      take: query.limit + 1,
    });
    const { page, last } = keysetPage(rows, query.limit);
    return { events: page.map(fromRunEventRow), ...(last && { next: last.id }) };
  }

  /**
   * What a live stream of the owner's run reads each time: the events after `after`, oldest
   * first, up to `limit` of them and, past the first, up to `maxChars` of message and detail
   * between them; and where the run stands. Null when the owner has no such run. `more` says the
   * read stopped at a bound, not at the log's end. The run is read first, so an ending it shows
   * has its events in this read or a later one.
   */
  async follow(
    owner: string,
    runId: string,
    query: { limit: number; maxChars: number; after?: number },
  ): Promise<{ run: FollowedRun; events: RunEvent[]; more: boolean } | null> {
    const run = await this.prisma.run.findFirst({
      where: { id: runId, owner },
      select: { state: true, workerId: true, endTime: true },
    });
    if (!run) return null;
    const after = query.after ?? 0;
    // The sizes first, so that a log of large entries is never read whole into memory.
    const sizes = await this.prisma.$queryRaw<{ size: number | bigint }[]>`
      SELECT coalesce(length(message), 0) + coalesce(length(detail), 0)
        + coalesce(length(step_detail), 0) AS size
      FROM run_events WHERE run_id = ${runId} AND id > ${after} ORDER BY id LIMIT ${query.limit}`;
    const take = withinBudget(
      sizes.map((row) => Number(row.size)),
      query.maxChars,
    );
    const rows =
      take === 0
        ? []
        : await this.prisma.runEvent.findMany({
            where: { runId, id: { gt: after } },
            orderBy: { id: "asc" },
            take,
          });
    // An ended run's last event says whether its worker has had its last word.
    const last =
      isTerminal(run.state as StoredRunState) && rows.length === 0
        ? await this.prisma.runEvent.findFirst({ where: { runId }, orderBy: { id: "desc" } })
        : null;
    return {
      run: {
        ...run,
        lastEvent: last ? fromRunEventRow(last) : (rows.map(fromRunEventRow).at(-1) ?? null),
      },
      events: rows.map(fromRunEventRow),
      more: take === query.limit || take < sizes.length,
    };
  }
}

/** How many of the entries of these sizes fit in `budget` together; at least one, if any. */
export function withinBudget(sizes: readonly number[], budget: number): number {
  let total = 0;
  for (let n = 0; n < sizes.length; n += 1) {
    total += sizes[n] as number;
    if (total > budget && n > 0) return n;
  }
  return sizes.length;
}

/** Where a followed run stands. */
export interface FollowedRun {
  state: string | null;
  /** The worker that last held it; null when none ever did (cancelled while queued). */
  workerId: string | null;
  endTime: Date | null;
  /** The run's last event as of this read (when the read returned none, the log's last). */
  lastEvent: RunEvent | null;
}
