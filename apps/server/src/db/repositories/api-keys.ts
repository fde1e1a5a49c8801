import { createHash, randomBytes } from "node:crypto";
import type { Clock } from "../../domain/clock.js";
import { newApiKeyId } from "../../domain/ids.js";
import type { PrismaClient } from "../database.js";
import type { DirectSql } from "../direct-sql.js";
import { ApiKeyCache } from "./api-key-cache.js";

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

/** How long a process trusts a key it has looked up (see ApiKeyCache). */
export const API_KEY_CACHE_MS = 5_000;

/**
 * API keys: created once, kept as SHA-256 hashes, looked up by hash when a request comes with one
 * this process has not looked up within the last API_KEY_CACHE_MS.
 */
export class ApiKeyRepository {
  private readonly cache: ApiKeyCache;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly direct: DirectSql,
    private readonly clock: Clock,
  ) {
    this.cache = new ApiKeyCache(API_KEY_CACHE_MS, () => clock.now().getTime());
  }

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
    const hash = hashApiKey(key);
    const cached = this.cache.get(hash);
    if (cached !== undefined) return cached;
    const [row] = await this.direct.all<{ id: string; owner: string }>(
      "SELECT id, owner FROM api_keys WHERE hash = ? AND revoked_at IS NULL",
      [hash],
    );
    if (row === undefined) return null;
    this.cache.set(hash, row.id, row.owner);
    return row.owner;
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
    // After the write: a request this process authenticates from now on reads the revocation.
    this.cache.drop(id);
    return count === 1;
  }
}
