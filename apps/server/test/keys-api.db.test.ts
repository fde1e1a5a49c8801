import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call } from "./support/http.js";

// Keys made, used and revoked over the API on TEST_FLAVOUR's database: scopes hold at once, a key
// cannot give more than it has, a revocation holds at once in the process that made it, and
// nothing a key holder sends can read key material or store anything past a refusal.

let server: TestServer;
let admin: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.keyFor("alice");
});
afterAll(async () => {
  await server?.close();
});

async function createKey(key: string, json: unknown) {
  return call(server.origin, "POST", "/v1/key", { key, json });
}

async function newKey(scopes: string[], name?: string): Promise<{ id: string; key: string }> {
  const reply = await createKey(admin, { scopes, ...(name === undefined ? {} : { name }) });
  expect(reply.status, reply.text).toBe(201);
  return reply.body as { id: string; key: string };
}

describe("keys made over the API", () => {
  it("work at once with exactly their scopes; a refused request changes nothing", async () => {
    const reader = await newKey(["runs:read"], "reader");
    expect((await call(server.origin, "GET", "/v1/run/list", { key: reader.key })).status).toBe(
      200,
    );
    await server.importSkillYaml("alice", "id: skill_k\nname: K\nsteps:\n  - log: hi\n");

    const start = await call(server.origin, "POST", "/v1/run/", {
      key: reader.key,
      json: { skill_id: "skill_k" },
    });
    expect(start.status).toBe(403);
    expect(start.body).toEqual({ detail: "This API key lacks the scope runs:write" });
    const put = await call(server.origin, "PUT", "/v1/secret/TOKEN", {
      key: reader.key,
      json: { value: "x" },
    });
    expect(put.body).toEqual({ detail: "This API key lacks the scope secrets:write" });
    const upload = new FormData();
    upload.append("file", new Blob(["a,b\n"], { type: "text/csv" }), "u.csv");
    const uploaded = await fetch(`${server.baseUrl}/file`, {
      method: "POST",
      headers: { authorization: `Bearer ${reader.key}` },
      body: upload,
    });
    expect(uploaded.status).toBe(403);

    expect(await server.db.prisma.run.count({ where: { owner: "alice" } })).toBe(0);
    expect(await server.db.prisma.secret.count({ where: { owner: "alice" } })).toBe(0);
    expect(await server.db.prisma.uploadedFile.count({ where: { owner: "alice" } })).toBe(0);
  });

  it("a key gives a new key only scopes it has, and admin only if it is admin", async () => {
    const manager = await newKey(["keys:write", "runs:read"]);
    const wider = await createKey(manager.key, { scopes: ["runs:read", "runs:write"] });
    expect(wider.status).toBe(403);
    expect(wider.body).toEqual({
      detail: "A key can only give scopes it has; this API key lacks runs:write",
    });
    const asAdmin = await createKey(manager.key, { scopes: ["admin"] });
    expect(asAdmin.body).toEqual({
      detail: "A key can only give scopes it has; this API key lacks admin",
    });
    const narrower = await createKey(manager.key, { scopes: ["runs:read"] });
    expect(narrower.status).toBe(201);
    expect((await createKey(admin, { scopes: ["admin"] })).status).toBe(201);
    // Nothing refused was stored.
    const stored = await server.repos.apiKeys.listActive("alice");
    expect(
      stored.filter((k) => k.scopes.includes("runs:write") && !k.scopes.includes("admin")),
    ).toEqual([]);
  });

  it("lists the owner's active keys with prefixes, never a key", async () => {
    const made = await newKey(["runs:read"], "listed");
    const bobs = await server.keyFor("bob");
    const reply = await call(server.origin, "GET", "/v1/key/list", { key: admin });
    expect(reply.status).toBe(200);
    const listed = reply.body as { id: string; name: string | null; prefix: string }[];
    expect(listed.find((k) => k.id === made.id)).toMatchObject({
      name: "listed",
      prefix: made.key.slice(0, 10),
    });
    expect(reply.text).not.toContain(made.key);
    expect(reply.text).not.toContain(admin);
    expect(reply.text).not.toContain(bobs.slice(0, 10));
  });

  it("a revocation holds at once on this server, even for a key it has just cached", async () => {
    const doomed = await newKey(["runs:read"]);
    expect((await call(server.origin, "GET", "/v1/run/list", { key: doomed.key })).status).toBe(
      200,
    );
    const revoked = await call(server.origin, "DELETE", `/v1/key/${doomed.id}`, { key: admin });
    expect(revoked.status).toBe(204);
    expect((await call(server.origin, "GET", "/v1/run/list", { key: doomed.key })).status).toBe(
      401,
    );
    const again = await call(server.origin, "DELETE", `/v1/key/${doomed.id}`, { key: admin });
    expect(again.status).toBe(404);
    expect((await call(server.origin, "GET", "/v1/key/list", { key: admin })).text).not.toContain(
      doomed.id,
    );
  });

  it("a key may revoke itself; another owner's key is not found and keeps working", async () => {
    const self = await newKey(["keys:write"]);
    expect(
      (await call(server.origin, "DELETE", `/v1/key/${self.id}`, { key: self.key })).status,
    ).toBe(204);
    expect((await call(server.origin, "GET", "/v1/key/list", { key: self.key })).status).toBe(401);

    const bob = await server.repos.apiKeys.create("bob");
    const other = await call(server.origin, "DELETE", `/v1/key/${bob.info.id}`, { key: admin });
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ detail: "Key not found" });
    for (const id of ["key_%00", "%ED%A0%80", "list"]) {
      const odd = await call(server.origin, "DELETE", `/v1/key/${id}`, { key: admin });
      expect(odd.status, id).toBe(404);
    }
    expect((await call(server.origin, "GET", "/v1/run/list", { key: bob.key })).status).toBe(200);
  });

  it("refuses hostile bodies with FastAPI's 422s, storing nothing", async () => {
    const before = (await server.repos.apiKeys.listActive("alice")).length;
    const bodies: [unknown, string][] = [
      [{}, "missing"],
      [{ scopes: "admin" }, "list_type"],
      [{ scopes: ["runs:read", "runs:read"] }, ""],
      [{ scopes: ["runs:read"], owner: "bob" }, ""],
      [{ scopes: ["__proto__"] }, "enum"],
      [{ scopes: Array(10).fill("runs:read") }, ""],
      [{ scopes: ["runs:read"], name: "" }, "string_too_short"],
      [{ scopes: ["runs:read"], name: "n\u0000ul" }, ""],
      [{ scopes: ["runs:read"], name: 42 }, "string_type"],
      ["admin", ""],
    ];
    for (const [json, type] of bodies) {
      const reply = await createKey(admin, json);
      expect(reply.status, JSON.stringify(json)).toBe(422);
      const issues = (reply.body as { detail: { type: string; loc: unknown[] }[] }).detail;
      expect(issues[0]?.loc[0]).toBe("body");
      if (type !== "") expect(issues.map((i) => i.type)).toContain(type);
    }
    expect((await server.repos.apiKeys.listActive("alice")).length).toBe(before);
  });

  it("keeps an owner to 100 active keys made over the API", async () => {
    for (let i = 0; i < 100; i++) await server.repos.apiKeys.create("carol");
    const carol = (await server.repos.apiKeys.listActive("carol"))[0];
    expect(carol).toBeDefined();
    const key = await server.keyFor("dave");
    // dave's one key: far from the cap.
    expect((await createKey(key, { scopes: ["runs:read"] })).status).toBe(201);
    const full = await server.repos.apiKeys.create("carol");
    const refused = await createKey(full.key, { scopes: ["runs:read"] });
    expect(refused.status).toBe(422);
    expect((refused.body as { detail: { msg: string }[] }).detail[0]?.msg).toBe(
      "Value error, an owner has at most 100 active keys; revoke one first",
    );
  });
});
