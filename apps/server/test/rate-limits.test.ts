import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call, type Reply } from "./support/http.js";

// RATE_LIMIT_PER_MINUTE over HTTP: the budget is the owner's, shared by its keys and operations;
// requests without a valid key are refused before it and use none of it; a refused scope counts.

const LIMIT = 3;
const BODY = {
  detail: "Too many requests: this owner's rate limit is used up; retry after Retry-After seconds",
};

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
});
afterAll(async () => {
  await server?.close();
});

function get(path: string, key?: string): Promise<Reply> {
  return call(server.origin, "GET", path, { key });
}

function expectRateLimited(reply: Reply): void {
  expect(reply.status, reply.text).toBe(429);
  expect(reply.body).toEqual(BODY);
  const retryAfter = Number(reply.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(reply.headers.get("ratelimit")).toMatch(/^"owner"; r=0; t=\d+$/);
}

describe("rate limits", () => {
  it("counts an owner's requests across its keys and operations, then answers 429", async () => {
    const first = await server.keyFor("alice");
    const second = await server.keyFor("alice");
    const remaining: string[] = [];
    for (const reply of [
      await get("/v1/run/list", first),
      await get("/v1/skill/list", second),
      await get("/v1/secret/list", first),
    ]) {
      expect(reply.status, reply.text).toBe(200);
      remaining.push(/r=(\d+)/.exec(reply.headers.get("ratelimit") ?? "")?.[1] ?? "none");
      expect(reply.headers.get("ratelimit-policy")).toMatch(/^"owner"; q=3; w=60; pk=:/);
    }
    expect(remaining).toEqual(["2", "1", "0"]);
    expectRateLimited(await get("/v1/run/list", second));
    expectRateLimited(await call(server.origin, "POST", "/v1/run/", { key: first, json: {} }));
    // Another owner has a budget of its own.
    expect((await get("/v1/run/list", await server.keyFor("bob"))).status).toBe(200);
  });

  it("requests without a key or with a bogus one are 401s that use no owner's budget", async () => {
    const carol = await server.keyFor("carol");
    const bogus = [undefined, "sk_never-issued", `${carol}x`, carol.slice(0, -1), "Bearer"];
    for (let round = 0; round < 3; round++) {
      for (const key of bogus) {
        const reply = await get("/v1/run/list", key);
        expect(reply.status).toBe(401);
        expect(reply.headers.get("ratelimit")).toBeNull();
      }
    }
    const reply = await get("/v1/run/list", carol);
    expect(reply.status).toBe(200);
    expect(reply.headers.get("ratelimit")).toMatch(/r=2;/);
  });

  it("counts requests a key's scopes refuse, so they cannot be sent without limit", async () => {
    const reader = await server.keyFor("dave", ["runs:read"]);
    for (let i = 0; i < LIMIT; i++) {
      const reply = await call(server.origin, "PUT", "/v1/secret/TOKEN", {
        key: reader,
        json: { value: "x" },
      });
      expect(reply.status).toBe(403);
    }
    expectRateLimited(await get("/v1/run/list", reader));
  });

  it("is off at 0: no RateLimit headers, no 429", async () => {
    const unlimited = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: "0" } });
    try {
      const key = await unlimited.keyFor("alice");
      for (let i = 0; i < 10; i++) {
        const reply = await call(unlimited.origin, "GET", "/v1/run/list", { key });
        expect(reply.status).toBe(200);
        expect(reply.headers.get("ratelimit")).toBeNull();
      }
    } finally {
      await unlimited.close();
    }
  });
});
