import type { Clock } from "../../domain/clock.js";
import type { PrismaClient } from "../database.js";
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
  ) {}

  /** Records an upload whose bytes are already in place; it is created now. */
  async create(owner: string, file: Omit<UploadedFile, "created_at">): Promise<UploadedFile> {
    const row = await this.prisma.uploadedFile.create({
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
  }

  /** The owner's upload, or null (unknown, another owner's, or removed by retention). */
  async get(owner: string, id: string): Promise<UploadedFile | null> {
    const row = await this.prisma.uploadedFile.findFirst({ where: { id, owner } });
    return row === null ? null : toUploadedFile(row);
  }

  /** Which of `ids` name uploads of the owner. */
  async existing(owner: string, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.prisma.uploadedFile.findMany({
      where: { owner, id: { in: ids } },
      select: { id: true },
    });
    return new Set(rows.map((row) => row.id));
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
    const { count } = await this.prisma.uploadedFile.deleteMany({ where: { id, owner } });
    return { outcome: count === 1 ? "deleted" : "not_found" };
  }

  /** Forgets these uploads (their bytes are gone); returns how many rows went. */
  async forget(ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const { count } = await this.prisma.uploadedFile.deleteMany({ where: { id: { in: ids } } });
    return count;
  }
}
