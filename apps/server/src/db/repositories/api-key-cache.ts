/** What a request's key is: its id, its owner and its scopes (domain/scopes.ts). */
export interface KeyIdentity {
  id: string;
  owner: string;
  scopes: readonly string[];
}

/**
 * The owners and scopes of recently used API keys, so that a request does not query its key: an entry holds
 * for `ttlMs` (5 s: API_KEY_CACHE_MS). A key revoked through this process is
 * dropped at once; one revoked elsewhere (the CLI, another server) stops working within the TTL.
 * Unknown keys are never kept, so a new key works at once and a flood of wrong keys cannot fill
 * it; at most `maxEntries` keys are kept, the oldest dropped first.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, { key: KeyIdentity; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly maxEntries = 10_000,
  ) {}

  /** The key cached for the hash, or undefined when it must be looked up. */
  get(hash: string): KeyIdentity | undefined {
    const entry = this.entries.get(hash);
    if (entry === undefined) return undefined;
    if (entry.until > this.now()) return entry.key;
    this.entries.delete(hash);
    return undefined;
  }

  set(hash: string, key: KeyIdentity): void {
    if (this.ttlMs <= 0) return;
    this.entries.delete(hash);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(hash, { key, until: this.now() + this.ttlMs });
  }

  /** Forgets the key with this id (revoked). */
  drop(keyId: string): void {
    for (const [hash, entry] of this.entries) {
      if (entry.key.id === keyId) this.entries.delete(hash);
    }
  }
}
