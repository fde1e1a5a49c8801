import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Clock } from "../../domain/clock.js";
import {
  openTestRepositories,
  type TestRepositories,
} from "../../test-support/test-repositories.js";
import { API_KEY_CACHE_MS, ApiKeyRepository, hashApiKey } from "./api-keys.js";

// On TEST_FLAVOUR's database: keys are cached for API_KEY_CACHE_MS, and a revocation holds at once
// in the process that made it and within that bound in every other one.

let opened: TestRepositories;
let now: Date;
const clock: Clock = { now: () => now };

beforeEach(async () => {
  now = new Date("2026-11-26T10:00:00.000Z");
  opened = await openTestRepositories(clock);
});
afterEach(async () => {
  await opened.close();
});

/** The keys of another process on the same database: a cache of its own. */
function otherProcess(): ApiKeyRepository {
  return new ApiKeyRepository(opened.db.prisma, opened.db.direct, clock);
}

describe("API keys", () => {
  it("a new key works at once in every process, an unknown one nowhere", async () => {
    const other = otherProcess();
    expect(await other.ownerOf("sk_unknown")).toBeNull();
    const { key } = await opened.repos.apiKeys.create("alice");
    expect(await other.ownerOf(key)).toBe("alice");
    expect(await opened.repos.apiKeys.ownerOf(key)).toBe("alice");
  });

  it("a revoked key is refused at once by the revoking process", async () => {
    const { key, info } = await opened.repos.apiKeys.create("alice");
    expect(await opened.repos.apiKeys.ownerOf(key)).toBe("alice");
    expect(await opened.repos.apiKeys.revoke(info.id)).toBe(true);
    expect(await opened.repos.apiKeys.ownerOf(key)).toBeNull();
  });

  it("a key revoked elsewhere is refused once the cache's bound has passed, not before", async () => {
    const other = otherProcess();
    const { key, info } = await opened.repos.apiKeys.create("alice");
    expect(await other.ownerOf(key)).toBe("alice");
    expect(await opened.repos.apiKeys.revoke(info.id)).toBe(true);
    now = new Date(now.getTime() + API_KEY_CACHE_MS - 1);
    expect(await other.ownerOf(key)).toBe("alice");
    now = new Date(now.getTime() + 1);
    expect(await other.ownerOf(key)).toBeNull();
    expect(API_KEY_CACHE_MS).toBeLessThanOrEqual(5_000);
  });

  it("a key keeps its scopes; one written before scopes existed has every scope (admin)", async () => {
    const { key } = await opened.repos.apiKeys.create("alice", {
      scopes: ["runs:write", "runs:read"],
    });
    expect(await otherProcess().identify(key)).toMatchObject({
      owner: "alice",
      scopes: ["runs:read", "runs:write"],
    });
    // As the migration leaves a key made before it: no scopes written, the column's default.
    await opened.db.direct.single(
      "INSERT INTO api_keys (id, owner, hash, prefix, created_at) VALUES (?, ?, ?, ?, ?)",
      ["key_old", "bob", hashApiKey("sk_old"), "sk_old", now],
    );
    expect(await otherProcess().identify("sk_old")).toMatchObject({
      owner: "bob",
      scopes: ["admin"],
    });
  });

  it("a revocation for an owner revokes only that owner's key", async () => {
    const { key, info } = await opened.repos.apiKeys.create("alice");
    expect(await opened.repos.apiKeys.revoke(info.id, "bob")).toBe(false);
    expect(await opened.repos.apiKeys.ownerOf(key)).toBe("alice");
    expect(await opened.repos.apiKeys.revoke(info.id, "alice")).toBe(true);
    expect(await opened.repos.apiKeys.ownerOf(key)).toBeNull();
  });
});
