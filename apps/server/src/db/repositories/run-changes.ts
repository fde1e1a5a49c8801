import type { RunSession } from "../../domain/api-types.js";
import type { PrismaClient } from "../database.js";
import { type DirectSql, placeholders } from "../direct-sql.js";
import { RUN_COLUMNS, type RunColumns, runRowOf } from "./run-list-sql.js";
import { toRunSession } from "./run-session.js";

/** One change of the feed: the owner's, with its run as it is now, or another owner's (null). */
export interface RunChangeEntry {
  id: number;
  run: RunSession | null;
}

/** Reads an owner's change feed (`GET /v1/run/stream`). */
export class RunChangeRepository {
  constructor(
    private readonly prisma: PrismaClient,
    /** Reads the runs with what a queued one waits for, as the run reads do. */
    private readonly direct: DirectSql,
    /** OWNER_MAX_RUNNING, which a queued run may wait for. */
    private readonly ownerMaxRunning: number | null = null,
  ) {}

  /** The id of the latest change of any owner; 0 when there is none. */
  async latest(): Promise<number> {
    const row = await this.prisma.runChange.findFirst({
      orderBy: { id: "desc" },
      select: { id: true },
    });
    return row?.id ?? 0;
  }

  /**
   * The changes after `after`, oldest first: up to `limit` of all owners' (the ids are one
   * sequence), so that a reader can tell a gap (a change not yet committed, or rolled back) from
   * another owner's change. Only the owner's come with their run, as it is now.
   */
  async after(owner: string, after: number, limit: number): Promise<RunChangeEntry[]> {
    const changes = await this.prisma.runChange.findMany({
      where: { id: { gt: after } },
      orderBy: { id: "asc" },
      take: limit,
      select: { id: true, owner: true, runId: true },
    });
    const owned = changes.filter((change) => change.owner === owner);
    const ids = [...new Set(owned.map((change) => change.runId))];
    const runs =
      ids.length === 0
        ? []
        : await this.direct.all<RunColumns>(
            `SELECT ${RUN_COLUMNS} FROM runs WHERE owner = ? AND id IN (${placeholders(ids.length)})`,
            [owner, ...ids],
          );
    const byId = new Map(
      runs.map((run) => [run.id, toRunSession(runRowOf(run, this.ownerMaxRunning))]),
    );
    return changes.map((change) => ({ id: change.id, run: byId.get(change.runId) ?? null }));
  }
}
