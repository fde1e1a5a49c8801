import { FILE_ID_PATTERN } from "../../domain/ids.js";
import type { PrismaClient } from "../database.js";
import type { DirectSql } from "../direct-sql.js";
import { fromJsonColumn } from "../json-column.js";
import { DELETE_RUN_CHANGES_BEFORE } from "../runs/sql/changes.js";
import {
  DELETE_CHECKPOINTS_ENDED_BEFORE,
  DELETE_STEP_LOGS_ENDED_BEFORE,
} from "../runs/sql/events.js";
import { DELETE_SETTLED_DELIVERIES_BEFORE } from "../runs/sql/webhook-deliveries.js";
import { stateIn } from "./run-state-filter.js";

/**
 * What retention asks of the database: which runs ended long enough ago, which uploads are in use,
 * and removing webhook deliveries that are done with.
 */
export class RetentionRepository {
  constructor(
    private readonly prisma: PrismaClient,
    /** The deletes, as every write of run state: straight to the driver. */
    private readonly direct: DirectSql,
  ) {}

  /** Which of `runIds` ended before `cutoff` (a run that has not ended has no end time). */
  async endedBefore(runIds: string[], cutoff: Date): Promise<string[]> {
    if (runIds.length === 0) return [];
    const rows = await this.prisma.run.findMany({
      where: { id: { in: runIds }, endTime: { lt: cutoff } },
      select: { id: true },
    });
    return rows.map((row) => row.id);
  }

  /**
   * The upload ids that queued or running runs name in their inputs: those runs copy them when
   * they start (or may start again), so their uploads must stay.
   */
  async uploadsInUse(): Promise<Set<string>> {
    const rows = await this.prisma.run.findMany({
      // The text test keeps the scan to runs that name an upload at all.
      where: { ...stateIn([null, "play", "pause"]), inputs: { contains: '"file_' } },
      select: { inputs: true },
    });
    const used = new Set<string>();
    for (const row of rows) {
      const inputs = fromJsonColumn<Record<string, unknown>>(row.inputs);
      for (const value of Object.values(inputs ?? {})) {
        if (typeof value === "string" && FILE_ID_PATTERN.test(value)) used.add(value);
      }
    }
    return used;
  }

  /** Deletes the webhook deliveries written before `cutoff` that are no longer pending. */
  async forgetWebhookDeliveries(cutoff: Date): Promise<number> {
    return (await this.direct.single(DELETE_SETTLED_DELIVERIES_BEFORE, [cutoff])).changes;
  }

  /** Deletes the step logs of runs that ended before `cutoff`; returns how many events went. */
  async forgetStepLogs(cutoff: Date): Promise<number> {
    let removed = 0;
    for (;;) {
      const { changes } = await this.direct.single(DELETE_STEP_LOGS_ENDED_BEFORE, [cutoff]);
      if (changes === 0) return removed;
      removed += changes;
    }
  }

  /** Deletes the checkpoints of runs that ended before `cutoff`; returns how many went. */
  async forgetCheckpoints(cutoff: Date): Promise<number> {
    let removed = 0;
    for (;;) {
      const { changes } = await this.direct.single(DELETE_CHECKPOINTS_ENDED_BEFORE, [cutoff]);
      if (changes === 0) return removed;
      removed += changes;
    }
  }

  /**
   * Deletes the live views of runs that have ended, whenever they ended: their worker removes
   * them, but not a parked run's that was cancelled (no worker held it then).
   */
  async forgetEndedLiveViews(): Promise<number> {
    const { changes } = await this.direct.single(
      "DELETE FROM run_live_views WHERE run_id IN (SELECT id FROM runs WHERE id IN (SELECT run_id FROM run_live_views) AND end_time IS NOT NULL)",
      [],
    );
    return changes;
  }

  /** Deletes the run changes (the run stream's feed) made before `cutoff`. */
  async forgetRunChanges(cutoff: Date): Promise<number> {
    return (await this.direct.single(DELETE_RUN_CHANGES_BEFORE, [cutoff])).changes;
  }
}
