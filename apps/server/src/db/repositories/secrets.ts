import type { SecretInfo } from "../../domain/api-types.js";
import type { Clock } from "../../domain/clock.js";
import { SecretLimitReached } from "../../domain/errors.js";
import { type SecretBox, SecretUnreadable } from "../../secrets/secret-box.js";
import { MAX_SECRETS_PER_OWNER } from "../../secrets/secret-rules.js";
import type { PrismaClient } from "../database.js";

type SecretRow = { name: string; createdAt: Date; updatedAt: Date };

const infoColumns = { name: true, createdAt: true, updatedAt: true } as const;

function toInfo(row: SecretRow): SecretInfo {
  return {
    name: row.name,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The context a secret is sealed for: it opens as this owner's secret of this name only. */
function contextOf(owner: string, name: string): string[] {
  return ["secret", owner, name];
}

/** Secrets, always read and changed within one owner; values only ever leave sealed or to a run. */
export class SecretRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: Clock,
    private readonly box: SecretBox,
  ) {}

  /**
   * Sets the owner's secret `name` to `value` (sealed before it reaches the database): created,
   * or replaced keeping its created_at. SecretLimitReached for a new name past the owner's limit
   * (checked before the write, so secrets created at the same moment may pass it by a few).
   */
  async put(owner: string, name: string, value: string): Promise<SecretInfo> {
    const now = this.clock.now();
    const ciphertext = this.box.seal(value, contextOf(owner, name));
    const where = { owner_name: { owner, name } };
    const exists = await this.prisma.secret.findUnique({ where, select: { name: true } });
    if (
      !exists &&
      (await this.prisma.secret.count({ where: { owner } })) >= MAX_SECRETS_PER_OWNER
    ) {
      throw new SecretLimitReached(MAX_SECRETS_PER_OWNER);
    }
    // One statement (INSERT … ON CONFLICT): two requests setting one new name both succeed.
    const row = await this.prisma.secret.upsert({
      where,
      create: { owner, name, ciphertext, createdAt: now, updatedAt: now },
      update: { ciphertext, updatedAt: now },
      select: infoColumns,
    });
    return toInfo(row);
  }

  /** The owner's secrets by name, without their values. */
  async list(owner: string): Promise<SecretInfo[]> {
    const rows = await this.prisma.secret.findMany({
      where: { owner },
      orderBy: { name: "asc" },
      select: infoColumns,
    });
    return rows.map(toInfo);
  }

  /** Deletes the owner's secret `name`; false when there was none. */
  async delete(owner: string, name: string): Promise<boolean> {
    const { count } = await this.prisma.secret.deleteMany({ where: { owner, name } });
    return count === 1;
  }

  /**
   * The clear values of the owner's secrets among `names`, for a run that reads them, and the
   * names that are not set. SecretUnreadable naming the first secret that does not open.
   */
  async reveal(
    owner: string,
    names: readonly string[],
  ): Promise<{ values: Record<string, string>; missing: string[] }> {
    const rows = await this.prisma.secret.findMany({
      where: { owner, name: { in: [...names] } },
      select: { name: true, ciphertext: true },
    });
    const values: Record<string, string> = {};
    for (const row of rows) {
      try {
        values[row.name] = this.box.open(row.ciphertext, contextOf(owner, row.name));
      } catch (error) {
        if (!(error instanceof SecretUnreadable)) throw error;
        throw new SecretUnreadable(`secret "${row.name}" cannot be read: ${error.message}`);
      }
    }
    return { values, missing: names.filter((name) => !Object.hasOwn(values, name)) };
  }
}
