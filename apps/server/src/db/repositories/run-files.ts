import type { RunFile } from "@skillrun/engine";
import type { PrismaClient } from "../database.js";

type RunFileRow = {
  name: string;
  bytes: number;
  contentType: string;
  sha256: string;
  createdAt: Date;
};

function toRunFile(row: RunFileRow): RunFile {
  return {
    name: row.name,
    bytes: row.bytes,
    content_type: row.contentType,
    sha256: row.sha256,
    created_at: row.createdAt.toISOString(),
  };
}

/**
 * The index of runs' files. The bytes are in each run's folder of the store; a row says the file
 * is complete there and what it is. Readers go through the run's owner, except `find`, which the
 * signed address of one file authorises.
 */
export class RunFileRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /**
   * Records a file the run stored. Idempotent on (run, name): a file written again under the
   * same name (a run re-queued after its worker was lost starts over) replaces its row.
   */
  async record(runId: string, file: RunFile): Promise<void> {
    const row = {
      bytes: file.bytes,
      contentType: file.content_type,
      sha256: file.sha256,
      createdAt: new Date(file.created_at),
    };
    await this.prisma.runFile.upsert({
      where: { runId_name: { runId, name: file.name } },
      create: { runId, name: file.name, ...row },
      update: row,
    });
  }

  /** The files of the owner's run, in the order stored; null when the owner has no such run. */
  async list(owner: string, runId: string): Promise<RunFile[] | null> {
    const run = await this.prisma.run.findFirst({
      where: { id: runId, owner },
      select: { id: true },
    });
    if (run === null) return null;
    const rows = await this.prisma.runFile.findMany({
      where: { runId },
      orderBy: [{ createdAt: "asc" }, { name: "asc" }],
    });
    return rows.map(toRunFile);
  }

  /** One file of a run, or null; for the holder of a signed address, who needs no owner. */
  async find(runId: string, name: string): Promise<RunFile | null> {
    const row = await this.prisma.runFile.findUnique({
      where: { runId_name: { runId, name } },
    });
    return row === null ? null : toRunFile(row);
  }

  /** Forgets every file of these runs (their folders are gone); returns how many rows went. */
  async forget(runIds: string[]): Promise<number> {
    if (runIds.length === 0) return 0;
    const { count } = await this.prisma.runFile.deleteMany({ where: { runId: { in: runIds } } });
    return count;
  }
}
