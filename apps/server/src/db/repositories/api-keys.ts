import { createHash, randomBytes } from "node:crypto";
import type { Clock } from "../../domain/clock.js";
import { newApiKeyId } from "../../domain/ids.js";
import { ADMIN, normaliseScopes, parseStoredScopes, type Scope } from "../../domain/scopes.js";
import type { PrismaClient } from "../database.js";
import type { DirectSql } from "../direct-sql.js";
import { ApiKeyCache, type KeyIdentity } from "./api-key-cache.js";

export type { KeyIdentity } from "./api-key-cache.js";

export interface ApiKeyInfo {
  id: string;
  owner: string;
  name: string | null;
  scopes: Scope[];
  prefix: string;
  createdAt: Date;
  revokedAt: Date | null;
}

/** What a new key is given: a name, and its scopes (every one, `admin`, unless said). */
export interface NewApiKey {
  name?: string | null;
  scopes?: readonly Scope[];
}

const INFO = {
  id: true,
  owner: true,
  name: true,
  scopes: true,
  prefix: true,
  createdAt: true,
  revokedAt: true,
} as const;

function toInfo(row: Omit<ApiKeyInfo, "scopes"> & { scopes: string }): ApiKeyInfo {
  return { ...row, scopes: parseStoredScopes(row.scopes) };
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
  async create(owner: string, options: NewApiKey = {}): Promise<{ key: string; info: ApiKeyInfo }> {
    const key = `${KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
    const scopes = normaliseScopes(options.scopes ?? [ADMIN]);
    const row = await this.prisma.apiKey.create({
      data: {
        id: newApiKeyId(),
        owner,
        hash: hashApiKey(key),
        prefix: key.slice(0, SHOWN_PREFIX_LENGTH),
        name: options.name ?? null,
        scopes: JSON.stringify(scopes),
        createdAt: this.clock.now(),
      },
      select: INFO,
    });
    return { key, info: toInfo(row) };
  }

  /** The id, owner and scopes of an active key, or null when it is unknown or revoked. */
  async identify(key: string): Promise<KeyIdentity | null> {
    const hash = hashApiKey(key);
    const cached = this.cache.get(hash);
    if (cached !== undefined) return cached;
    const [row] = await this.direct.all<{ id: string; owner: string; scopes: string }>(
      "SELECT id, owner, scopes FROM api_keys WHERE hash = ? AND revoked_at IS NULL",
      [hash],
    );
    if (row === undefined) return null;
    const identity = { id: row.id, owner: row.owner, scopes: parseStoredScopes(row.scopes) };
    this.cache.set(hash, identity);
    return identity;
  }

  /** The owner of an active key, or null when the key is unknown or revoked. */
  async ownerOf(key: string): Promise<string | null> {
    return (await this.identify(key))?.owner ?? null;
  }

  /** Every key of every owner, revoked ones too (`skillrun keys list`). */
  async list(): Promise<ApiKeyInfo[]> {
    const rows = await this.prisma.apiKey.findMany({
      orderBy: [{ owner: "asc" }, { createdAt: "asc" }],
      select: INFO,
    });
    return rows.map(toInfo);
  }

  /** The owner's active keys, oldest first (`GET /v1/key/list`). */
  async listActive(owner: string): Promise<ApiKeyInfo[]> {
    const rows = await this.prisma.apiKey.findMany({
      where: { owner, revokedAt: null },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      select: INFO,
    });
    return rows.map(toInfo);
  }

  async countActive(owner: string): Promise<number> {
    return this.prisma.apiKey.count({ where: { owner, revokedAt: null } });
  }

  /**
   * Revokes a key (of `owner`'s only, when given); false when no such active key has that id.
   */
  async revoke(id: string, owner?: string): Promise<boolean> {
    const { count } = await this.prisma.apiKey.updateMany({
      where: { id, revokedAt: null, ...(owner === undefined ? {} : { owner }) },
      data: { revokedAt: this.clock.now() },
    });
    // After the write: a request this process authenticates from now on reads the revocation.
    this.cache.drop(id);
    return count === 1;
  }
}
