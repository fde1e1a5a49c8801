import type { RunFile } from "@skillrun/engine";
import type { PrismaClient } from "../database.js";
import type { OwnerStorage } from "./owner-storage.js";

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
  constructor(
    private readonly prisma: PrismaClient,
    private readonly storage: OwnerStorage,
  ) {}

  /**
   * Records a file the run stored, counted in its owner's storage. Idempotent on (run, name): a
   * file written again under the same name (a run re-queued after its worker was lost starts
   * over) replaces its row, and only the difference is counted. False when the file would take
   * the owner past the quota: nothing is recorded (the caller removes the file).
   */
  async record(runId: string, file: RunFile): Promise<boolean> {
    const row = {
      bytes: file.bytes,
      contentType: file.content_type,
      sha256: file.sha256,
      createdAt: new Date(file.created_at),
    };
    const where = { runId_name: { runId, name: file.name } };
    return this.prisma.$transaction(async (tx) => {
      const run = await tx.run.findUnique({ where: { id: runId }, select: { owner: true } });
      if (run === null) return false;
      const before = await tx.runFile.findUnique({ where, select: { bytes: true } });
      const more = file.bytes - (before?.bytes ?? 0);
      if (more > 0 && !(await this.storage.charge(tx, run.owner, more))) return false;
      if (more < 0) await this.storage.credit(tx, run.owner, -more);
      await tx.runFile.upsert({ where, create: { runId, name: file.name, ...row }, update: row });
      return true;
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

  /**
   * Forgets every file and the video of these runs (their folders are about to go), taking their
   * bytes off the owners' storage; returns how many file rows went.
   */
  async forget(runIds: string[]): Promise<number> {
    let count = 0;
    for (const runId of runIds) count += await this.forgetRun(runId);
    return count;
  }

  /** forget for one run, in one transaction: only the rows this remover took are counted off. */
  private forgetRun(runId: string): Promise<number> {
    return this.prisma.$transaction(async (tx) => {
      const run = await tx.run.findUnique({ where: { id: runId }, select: { owner: true } });
      const files = await tx.runFile.findMany({
        where: { runId },
        select: { name: true, bytes: true },
      });
      let freed = 0;
      let count = 0;
      for (const file of files) {
        const gone = await tx.runFile.deleteMany({ where: { runId, name: file.name } });
        count += gone.count;
        freed += gone.count * file.bytes;
      }
      const video = await tx.runVideo.findUnique({ where: { runId } });
      if (video !== null) {
        const gone = await tx.runVideo.deleteMany({ where: { runId } });
        freed += gone.count * Number(video.bytes);
      }
      if (run !== null) await this.storage.credit(tx, run.owner, freed);
      return count;
    });
  }

  /**
   * Records the run's video (`bytes` long) in its owner's storage, replacing what an earlier
   * attempt's recorded. False when it would take the owner past the quota: nothing is recorded
   * (the caller removes the video).
   */
  async recordVideo(runId: string, owner: string, bytes: number): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const before = await tx.runVideo.findUnique({ where: { runId } });
      const more = bytes - Number(before?.bytes ?? 0);
      if (more > 0 && !(await this.storage.charge(tx, owner, more))) return false;
      if (more < 0) await this.storage.credit(tx, owner, -more);
      await tx.runVideo.upsert({
        where: { runId },
        create: { runId, owner, bytes: BigInt(bytes) },
        update: { bytes: BigInt(bytes) },
      });
      return true;
    });
  }
}
