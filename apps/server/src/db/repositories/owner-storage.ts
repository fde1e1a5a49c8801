import type { PrismaClient } from "../database.js";

/** A Prisma client inside a transaction: what the charges and credits are written with. */
export type StorageTx = Omit<
  PrismaClient,
  "$connect" | "$disconnect" | "$on" | "$transaction" | "$extends"
>;

/**
 * The bytes each owner keeps in the file store (uploads, run files, videos), as a running total
 * (`owner_storage`) changed in the transaction that adds or removes the row of what it counts.
 * A charge is one conditional UPDATE against the quota, so two uploads or runs of one owner
 * cannot pass it together (docs/decisions/0049-owner-storage-quota.md).
 */
export class OwnerStorage {
  constructor(
    private readonly prisma: PrismaClient,
    /** OWNER_STORAGE_MAX_BYTES; null: no quota (what is kept is counted all the same). */
    readonly quotaBytes: number | null,
  ) {}

  /** The bytes the owner keeps. */
  async used(owner: string): Promise<number> {
    const row = await this.prisma.ownerStorage.findUnique({ where: { owner } });
    return row === null ? 0 : Number(row.bytes);
  }

  /** The bytes the owner may still keep; null without a quota. */
  async free(owner: string): Promise<number | null> {
    if (this.quotaBytes === null) return null;
    return Math.max(0, this.quotaBytes - (await this.used(owner)));
  }

  /**
   * Counts `bytes` more for the owner, unless they would take it past the quota: false then, and
   * nothing is counted (the caller keeps nothing of them).
   */
  async charge(tx: StorageTx, owner: string, bytes: number): Promise<boolean> {
    await tx.$executeRaw`INSERT INTO "owner_storage" ("owner", "bytes") VALUES (${owner}, 0) ON CONFLICT ("owner") DO NOTHING`;
    const within =
      this.quotaBytes === null || bytes <= 0
        ? {}
        : { bytes: { lte: BigInt(this.quotaBytes - bytes) } };
    const { count } = await tx.ownerStorage.updateMany({
      where: { owner, ...within },
      data: { bytes: { increment: BigInt(bytes) } },
    });
    return count === 1;
  }

  /** Counts `bytes` fewer for the owner: what they counted is gone. */
  async credit(tx: StorageTx, owner: string, bytes: number): Promise<void> {
    if (bytes === 0) return;
    await tx.ownerStorage.updateMany({
      where: { owner },
      data: { bytes: { decrement: BigInt(bytes) } },
    });
  }
}

/** The failure of a write that would take an owner past OWNER_STORAGE_MAX_BYTES. */
export class OwnerStorageExceeded extends Error {
  override readonly name = "OwnerStorageExceeded";
}
