import type { Clock } from "../../domain/clock.js";
import type { PrismaClient } from "../database.js";
import type { OwnerStorage } from "./owner-storage.js";
import { stateIn } from "./run-state-filter.js";

/** A file `POST /v1/file` kept, as the API shows it (UploadedFile in openapi.yaml). */
export interface UploadedFile {
  id: string;
  name: string;
  bytes: number;
  content_type: string;
  sha256: string;
  created_at: string;
}

type UploadedFileRow = {
  id: string;
  name: string;
  bytes: number;
  contentType: string;
  sha256: string;
  createdAt: Date;
};

function toUploadedFile(row: UploadedFileRow): UploadedFile {
  return {
    id: row.id,
    name: row.name,
    bytes: row.bytes,
    content_type: row.contentType,
    sha256: row.sha256,
    created_at: row.createdAt.toISOString(),
  };
}

/** Uploaded files, always read within one owner; their bytes are in the store's uploads folder. */
export class UploadedFileRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: Clock,
    private readonly storage: OwnerStorage,
  ) {}

  /** OWNER_STORAGE_MAX_BYTES; null: none. */
  get quotaBytes(): number | null {
    return this.storage.quotaBytes;
  }

  /**
   * Records an upload whose bytes are already in place, counted in the owner's storage; it is
   * created now. Null when it would take the owner past the quota: nothing is recorded.
   */
  async create(
    owner: string,
    file: Omit<UploadedFile, "created_at">,
  ): Promise<UploadedFile | null> {
    return this.prisma.$transaction(async (tx) => {
      if (!(await this.storage.charge(tx, owner, file.bytes))) return null;
      const row = await tx.uploadedFile.create({
        data: {
          id: file.id,
          owner,
          name: file.name,
          bytes: file.bytes,
          contentType: file.content_type,
          sha256: file.sha256,
          createdAt: this.clock.now(),
        },
      });
      return toUploadedFile(row);
    });
  }

  /** The owner's upload, or null (unknown, another owner's, or removed by retention). */
  async get(owner: string, id: string): Promise<UploadedFile | null> {
    const row = await this.prisma.uploadedFile.findFirst({ where: { id, owner } });
    return row === null ? null : toUploadedFile(row);
  }

  /** Which of `ids` name uploads of the owner, each with its content type. */
  async existing(owner: string, ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.prisma.uploadedFile.findMany({
      where: { owner, id: { in: ids } },
      select: { id: true, contentType: true },
    });
    return new Map(rows.map((row) => [row.id, row.contentType]));
  }

  /**
   * Up to `limit` uploads made before `cutoff`, oldest first (then by id), after the one `after`
   * names when given: retention pages through them.
   */
  async createdBefore(
    cutoff: Date,
    limit: number,
    after?: { createdAt: Date; id: string },
  ): Promise<{ id: string; bytes: number; createdAt: Date }[]> {
    return this.prisma.uploadedFile.findMany({
      where: {
        createdAt: { lt: cutoff },
        ...(after && {
          OR: [
            { createdAt: { gt: after.createdAt } },
            { createdAt: after.createdAt, id: { gt: after.id } },
          ],
        }),
      },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      take: limit,
      select: { id: true, bytes: true, createdAt: true },
    });
  }

  /**
   * Forgets the owner's upload `id` unless a run of the owner that has not ended names it (it
   * still needs the file): "deleted", "not_found", or the ids of up to 10 runs that use it.
   */
  async delete(
    owner: string,
    id: string,
  ): Promise<{ outcome: "deleted" | "not_found" } | { outcome: "in_use"; by: string[] }> {
    const users = await this.prisma.run.findMany({
      // The text test finds the id wherever inputs hold it; a file id names nothing else.
      where: { owner, ...stateIn([null, "play", "pause"]), inputs: { contains: `"${id}"` } },
      orderBy: { id: "asc" },
      take: 10,
      select: { id: true },
    });
    if (users.length > 0) return { outcome: "in_use", by: users.map((run) => run.id) };
    return { outcome: (await this.forgetOne(id, owner)) ? "deleted" : "not_found" };
  }

  /** Forgets these uploads (their bytes are gone); returns how many rows went. */
  async forget(ids: string[]): Promise<number> {
    let count = 0;
    for (const id of ids) if (await this.forgetOne(id)) count += 1;
    return count;
  }

  /**
   * Forgets one upload (of `owner` when given) and takes its bytes off its owner's storage, in one
   * transaction; only the remover whose delete took the row counts them off.
   */
  private forgetOne(id: string, owner?: string): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.uploadedFile.findFirst({
        where: { id, ...(owner !== undefined && { owner }) },
        select: { owner: true, bytes: true },
      });
      if (row === null) return false;
      const { count } = await tx.uploadedFile.deleteMany({ where: { id, owner: row.owner } });
      if (count === 1) await this.storage.credit(tx, row.owner, row.bytes);
      return count === 1;
    });
  }
}
