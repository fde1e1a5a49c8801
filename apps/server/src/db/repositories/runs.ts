import type { RunSession, RunState } from "../../domain/api-types.js";
import type { Clock } from "../../domain/clock.js";
import type { Cursor } from "../../domain/cursor.js";
import { newRunId } from "../../domain/ids.js";
import { sourcesOf } from "../../domain/run-state-machine.js";
import type { RunSignals } from "../../worker/run-signals.js";
import type { PrismaClient } from "../database.js";
import { fromJsonColumn, toJsonColumn } from "../json-column.js";
import { keysetPage } from "./keyset-page.js";
import { stateIn } from "./run-state-filter.js";

export interface RunListQuery {
  skillId?: string;
  states?: RunState[];
  limit: number;
  after?: Cursor;
}

type RunRow = {
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
};

function toRunSession(row: RunRow): RunSession {
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
  };
}

/** Runs, always read and changed within one owner. */
export class RunRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: Clock,
    private readonly signals: RunSignals,
  ) {}

  /** Queues a run: state null, accepted (and started) now; the workers are told. */
  async create(input: {
    owner: string;
    skill: { id: string; name: string };
    inputs: Record<string, unknown>;
  }): Promise<RunSession> {
    const now = this.clock.now();
    const row = await this.signals.change(async (db) => ({
      value: await db.run.create({
        data: {
          id: newRunId(),
          owner: input.owner,
          skillId: input.skill.id,
          name: input.skill.name,
          state: null,
          environment: "cloud",
          inputs: toJsonColumn(input.inputs),
          data: null,
          createdAt: now,
          startTime: now,
        },
      }),
      signal: { type: "queued" },
    }));
    return toRunSession(row);
  }

  async get(owner: string, id: string): Promise<RunSession | null> {
    const row = await this.prisma.run.findFirst({ where: { id, owner } });
    return row ? toRunSession(row) : null;
  }

  /**
   * One page of runs, newest first (created_at desc, id desc). `next` is the position after
   * the page when more runs follow it.
   */
  async list(owner: string, query: RunListQuery): Promise<{ runs: RunSession[]; next?: Cursor }> {
    const rows = await this.prisma.run.findMany({
      where: {
        owner,
        ...(query.skillId !== undefined && { skillId: query.skillId }),
        ...(query.states !== undefined && { state: { in: query.states } }),
        ...(query.after && {
          OR: [
            { createdAt: { lt: query.after.createdAt } },
            { createdAt: query.after.createdAt, id: { lt: query.after.id } },
          ],
        }),
      },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      // One more than the page tells whether another page follows.
      take: query.limit + 1,
    });
    const { page, last } = keysetPage(rows, query.limit);
    return {
      runs: page.map(toRunSession),
      ...(last && { next: { createdAt: last.createdAt, id: last.id } }),
    };
  }

  /**
   * Cancels a run that has not ended and returns its state after the call; null when the
   * owner has no such run. Idempotent: a terminal run keeps (and reports) its state. A worker
   * executing the run is told to stop it.
   */
  async cancel(owner: string, id: string): Promise<RunState | null> {
    return this.signals.change(async (db) => {
      const { count } = await db.run.updateMany({
        where: { id, owner, ...stateIn(sourcesOf("cancel")) },
        data: { state: "cancel", endTime: this.clock.now(), leaseExpiresAt: null },
      });
      const row = await db.run.findFirst({ where: { id, owner }, select: { state: true } });
      return {
        value: row ? (row.state as RunState | null) : null,
        signal: count === 1 ? { type: "cancelled", runId: id } : undefined,
      };
    });
  }
}
