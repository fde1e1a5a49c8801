/**
 * The owners of recently used API keys, so that a request does not query its key: an entry holds
 * for `ttlMs` (5 s: API_KEY_CACHE_MS). A key revoked through this process is
 * dropped at once; one revoked elsewhere (the CLI, another server) stops working within the TTL.
 * Unknown keys are never kept, so a new key works at once and a flood of wrong keys cannot fill
 * it; at most `maxEntries` keys are kept, the oldest dropped first.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, { owner: string; keyId: string; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly maxEntries = 10_000,
  ) {}

  /** The owner cached for the key's hash, or undefined when it must be looked up. */
  get(hash: string): string | undefined {
    const entry = this.entries.get(hash);
    if (entry === undefined) return undefined;
    if (entry.until > this.now()) return entry.owner;
    this.entries.delete(hash);
    return undefined;
  }

  set(hash: string, keyId: string, owner: string): void {
    if (this.ttlMs <= 0) return;
    this.entries.delete(hash);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(hash, { owner, keyId, until: this.now() + this.ttlMs });
  }

  /** Forgets the key with this id (revoked). */
  drop(keyId: string): void {
    for (const [hash, entry] of this.entries) {
      if (entry.keyId === keyId) this.entries.delete(hash);
    }
  }
}
