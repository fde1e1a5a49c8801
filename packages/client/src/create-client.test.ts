import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSkillrunClient } from "./create-client.js";
import {
  clientFor,
  noopSkill,
  recordingFetch,
  startTestServer,
  sumSkill,
  type TestServer,
} from "./test-support/fixtures.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe("createSkillrunClient", () => {
  it("sends the API key as a bearer header on every request, through the given fetch", async () => {
    const recorder = recordingFetch();
    await server.importSkills("alice", [noopSkill]);
    const key = await server.keyFor("alice");
    const client = createSkillrunClient({ baseUrl: server.baseUrl, apiKey: key, ...recorder });

    await client.GET("/skill/list");
    await client.POST("/run/", { body: { skill_id: noopSkill.id } });

    expect(recorder.requests.map(({ url }) => url.pathname)).toEqual([
      "/v1/skill/list",
      "/v1/run/",
    ]);
    for (const { request } of recorder.requests) {
      expect(request.headers.get("authorization")).toBe(`Bearer ${key}`);
    }
  });

  it("returns the typed 401 body for an unknown key", async () => {
    const client = createSkillrunClient({ baseUrl: server.baseUrl, apiKey: "not-a-key" });
    const { data, error, response } = await client.GET("/skill/list");
    expect(data).toBeUndefined();
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe("Bearer");
    expect(error).toEqual({ detail: "Not authenticated" });
  });
});

describe("typed calls against the real server", () => {
  it("starts a run, gets it, lists it and cancels it", async () => {
    const client = await clientFor(server, "bob", { skills: [sumSkill] });

    const started = await client.POST("/run/", {
      body: { skill_id: sumSkill.id, inputs: { a: "42" } },
    });
    expect(started.error).toBeUndefined();
    expect(started.data).toMatchObject({
      skill_id: "skill_sum",
      owner: "bob",
      name: "Sum",
      state: null,
      end_time: null,
      inputs: { a: 42 },
    });
    const id = started.data?.id ?? "";
    expect(id).toMatch(/^run_[0-9a-f-]{36}$/);

    const got = await client.GET("/run/{id}", { params: { path: { id } } });
    expect(got.data).toEqual(started.data);

    const listed = await client.GET("/run/list", { params: { query: { skill_id: sumSkill.id } } });
    expect(listed.data?.map((run) => run.id)).toEqual([id]);

    const cancelled = await client.POST("/run/{id}/cancel", { params: { path: { id } } });
    expect(cancelled.data).toBe("cancel");

    const after = await client.GET("/run/{id}", { params: { path: { id } } });
    expect(after.data?.state).toBe("cancel");
    expect(after.data?.end_time).toEqual(expect.any(String));
  });

  it("gets a skill and lists skills, ordered by name", async () => {
    const client = await clientFor(server, "carol", { skills: [sumSkill, noopSkill] });

    const skill = await client.GET("/skill/{id}", { params: { path: { id: sumSkill.id } } });
    expect(skill.data).toMatchObject({
      id: "skill_sum",
      name: "Sum",
      owner: "carol",
      description: null,
      inputs: [{ id: "input_a", json_key: "a", data_type: "number", required: true }],
    });

    const skills = await client.GET("/skill/list");
    expect(skills.data?.map((s) => s.id)).toEqual(["skill_noop", "skill_sum"]);
  });

  it("returns the typed 404 bodies for an unknown run and an unknown skill", async () => {
    const client = await clientFor(server, "dave");

    const run = await client.GET("/run/{id}", { params: { path: { id: "run_missing" } } });
    expect(run.response.status).toBe(404);
    expect(run.data).toBeUndefined();
    expect(run.error).toEqual({ detail: "Run not found" });

    const cancel = await client.POST("/run/{id}/cancel", {
      params: { path: { id: "run_missing" } },
    });
    expect(cancel.response.status).toBe(404);
    expect(cancel.error).toEqual({ detail: "Run not found" });

    const skill = await client.GET("/skill/{id}", { params: { path: { id: "skill_missing" } } });
    expect(skill.response.status).toBe(404);
    expect(skill.error).toEqual({ detail: "Skill not found" });

    const start = await client.POST("/run/", { body: { skill_id: "skill_missing" } });
    expect(start.response.status).toBe(404);
    expect(start.error).toEqual({ detail: "Skill not found" });
  });

  it("returns the typed 422 body for invalid inputs and an invalid query", async () => {
    const client = await clientFor(server, "erin", { skills: [sumSkill] });

    const missing = await client.POST("/run/", { body: { skill_id: sumSkill.id, inputs: {} } });
    expect(missing.response.status).toBe(422);
    expect(missing.error).toEqual({
      detail: [{ loc: ["body", "inputs", "a"], msg: "Field required", type: "missing" }],
    });

    const limit = await client.GET("/run/list", { params: { query: { limit: 0 } } });
    expect(limit.response.status).toBe(422);
    expect(limit.error).toEqual({
      detail: [
        {
          loc: ["query", "limit"],
          msg: "Input should be greater than or equal to 1",
          type: "greater_than_equal",
        },
      ],
    });
  });
});
