import { describe, expect, it } from "vitest";
import { ApiKeyCache, type KeyIdentity } from "./api-key-cache.js";

function key(id: string, owner: string): KeyIdentity {
  return { id, owner, scopes: ["admin"] };
}

describe("ApiKeyCache", () => {
  it("answers within its TTL and forgets after it", () => {
    let now = 0;
    const cache = new ApiKeyCache(5_000, () => now);
    cache.set("h1", key("key_1", "alice"));
    now = 4_999;
    expect(cache.get("h1")?.owner).toBe("alice");
    now = 5_000;
    expect(cache.get("h1")).toBeUndefined();
  });

  it("drops a key by its id", () => {
    const cache = new ApiKeyCache(5_000, () => 0);
    cache.set("h1", key("key_1", "alice"));
    cache.set("h2", key("key_2", "bob"));
    cache.drop("key_1");
    expect(cache.get("h1")).toBeUndefined();
    expect(cache.get("h2")?.owner).toBe("bob");
  });

  it("keeps at most maxEntries, dropping the oldest first", () => {
    const cache = new ApiKeyCache(5_000, () => 0, 2);
    cache.set("h1", key("key_1", "a"));
    cache.set("h2", key("key_2", "b"));
    cache.set("h3", key("key_3", "c"));
    expect(cache.get("h1")).toBeUndefined();
    expect(cache.get("h2")?.owner).toBe("b");
    expect(cache.get("h3")?.owner).toBe("c");
  });

  it("keeps nothing with a TTL of 0", () => {
    const cache = new ApiKeyCache(0, () => 0);
    cache.set("h1", key("key_1", "a"));
    expect(cache.get("h1")).toBeUndefined();
  });
});
