import { FILE_ID_PATTERN } from "../../domain/ids.js";
import type { PrismaClient } from "../database.js";
import { fromJsonColumn } from "../json-column.js";
import { stateIn } from "./run-state-filter.js";

/**
 * What retention asks of the database: which runs ended long enough ago, which uploads are in use,
 * and removing webhook deliveries that are done with.
 */
export class RetentionRepository {
  constructor(private readonly prisma: PrismaClient) {}

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
    const { count } = await this.prisma.webhookDelivery.deleteMany({
      where: { createdAt: { lt: cutoff }, state: { in: ["delivered", "failed"] } },
    });
    return count;
  }

  /** Deletes the run changes (the run stream's feed) made before `cutoff`. */
  async forgetRunChanges(cutoff: Date): Promise<number> {
    const { count } = await this.prisma.runChange.deleteMany({ where: { at: { lt: cutoff } } });
    return count;
  }
}
