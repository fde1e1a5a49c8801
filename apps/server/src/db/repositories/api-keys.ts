import { createHash, randomBytes } from "node:crypto";
import type { Clock } from "../../domain/clock.js";
import { newApiKeyId } from "../../domain/ids.js";
import type { PrismaClient } from "../database.js";

export interface ApiKeyInfo {
  id: string;
  owner: string;
  prefix: string;
  createdAt: Date;
  revokedAt: Date | null;
}

// Keys look like `sk_` + 43 URL-safe characters (32 random bytes); the prefix shown in listings
// is long enough to tell keys apart and far too short to guess the rest.
const KEY_PREFIX = "sk_";
const SHOWN_PREFIX_LENGTH = 10;

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** API keys: created once, kept as SHA-256 hashes, looked up by hash on every request. */
export class ApiKeyRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: Clock,
  ) {}

  /** Creates a key for `owner`; the returned `key` is the only time the secret exists in clear. */
  async create(owner: string): Promise<{ key: string; info: ApiKeyInfo }> {
    const key = `${KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
    const info = await this.prisma.apiKey.create({
      data: {
        id: newApiKeyId(),
        owner,
        hash: hashApiKey(key),
        prefix: key.slice(0, SHOWN_PREFIX_LENGTH),
        createdAt: this.clock.now(),
      },
      select: { id: true, owner: true, prefix: true, createdAt: true, revokedAt: true },
    });
    return { key, info };
  }

  /** The owner of an active key, or null when the key is unknown or revoked. */
  async ownerOf(key: string): Promise<string | null> {
    const row = await this.prisma.apiKey.findUnique({
      where: { hash: hashApiKey(key) },
      select: { owner: true, revokedAt: true },
    });
    return row && row.revokedAt === null ? row.owner : null;
  }

  async list(): Promise<ApiKeyInfo[]> {
    return this.prisma.apiKey.findMany({
      orderBy: [{ owner: "asc" }, { createdAt: "asc" }],
      select: { id: true, owner: true, prefix: true, createdAt: true, revokedAt: true },
    });
  }

  /** Revokes a key; false when no active key has that id. */
  async revoke(id: string): Promise<boolean> {
    const { count } = await this.prisma.apiKey.updateMany({
      where: { id, revokedAt: null },
      data: { revokedAt: this.clock.now() },
    });
    return count === 1;
  }
}
