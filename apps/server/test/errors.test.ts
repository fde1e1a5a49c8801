import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiKeyRepository } from "../src/db/repositories/api-keys.js";
import type { RunSession } from "../src/domain/api-types.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { FAILURE_MESSAGE, failingRuns, failingSkills } from "./support/failing-repositories.js";
import { type CallOptions, call, oversizedRunBody, skillRecord } from "./support/http.js";

/** Errors in FastAPI's shapes exactly (docs/api.md "Errors"): every body asserted whole. */

const NOT_AUTHENTICATED = { detail: "Not authenticated" };
const RUN_NOT_FOUND = { detail: "Run not found" };
const SKILL_NOT_FOUND = { detail: "Skill not found" };
const INTERNAL_ERROR = { detail: "Internal Server Error" };

let server: TestServer;
let alice: string;
let bob: string;
let bobRun: RunSession;

// alice's skill with one input of each kind the checks below need.
const TYPED = "skill_typed";

beforeAll(async () => {
  server = await startTestServer();
  alice = await server.keyFor("alice");
  bob = await server.keyFor("bob");
  await server.importSkills("alice", [
    skillRecord(TYPED, "Typed", [
      { id: "in_url", json_key: "url", data_type: "string", required: true },
      { id: "in_count", json_key: "count", data_type: "number", required: false, default: 5 },
      { id: "in_loud", json_key: "loud", data_type: "boolean", required: false, default: false },
      { id: "in_tags", json_key: "tags", data_type: "array", required: false },
    ]),
    skillRecord("skill_proto", "Proto", [
      { id: "in_c", json_key: "constructor", data_type: "string", required: false, default: "d" },
    ]),
  ]);
  await server.importSkills("bob", [skillRecord("skill_bob", "Bob's")]);
  bobRun = await server.repos.runs.create({
    owner: "bob",
    skill: { id: "skill_bob", name: "Bob's" },
    inputs: {},
  });
});

afterAll(async () => {
  await server?.close();
});

function get(url: string, options: CallOptions = { key: alice }) {
  return call(server.origin, "GET", url, options);
}

function post(url: string, options: CallOptions) {
  return call(server.origin, "POST", url, options);
}

function startRun(json: unknown, key = alice) {
  return post("/v1/run/", { key, json });
}

describe("422: validation failures have FastAPI's shape", () => {
  it("reports a missing skill_id as body.skill_id missing", async () => {
    const reply = await startRun({ inputs: {} });
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({
      detail: [{ loc: ["body", "skill_id"], msg: "Field required", type: "missing" }],
    });
  });

  it("reports a numeric skill_id as string_type", async () => {
    const reply = await startRun({ skill_id: 42 });
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({
      detail: [
        { loc: ["body", "skill_id"], msg: "Input should be a valid string", type: "string_type" },
      ],
    });
  });

  it("reports inputs that are not an object as dict_type", async () => {
    const reply = await startRun({ skill_id: TYPED, inputs: ["https://example.com"] });
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({
      detail: [
        { loc: ["body", "inputs"], msg: "Input should be a valid dictionary", type: "dict_type" },
      ],
    });
  });

  it("locates a bad state_filter value by its position among the repeated keys", async () => {
    const reply = await get("/v1/run/list?state_filter=play&state_filter=running");
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({
      detail: [
        {
          loc: ["query", "state_filter", 1],
          msg: "Input should be 'play', 'pause', 'finish', 'reset', 'cancel', 'timeout', 'editing' or 'queued'",
          type: "enum",
        },
      ],
    });
  });

  it("reports malformed JSON as json_invalid at the offset of the fault, as FastAPI does", async () => {
    // Python's json module stops at offset 17 (the `}` after the trailing comma); FastAPI puts it
    // after "body".
    const reply = await post("/v1/run/", { key: alice, body: '{"skill_id": "x",}' });
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({
      detail: [{ loc: ["body", 17], msg: "JSON decode error", type: "json_invalid" }],
    });
  });

  it("does not call a well-formed JSON body that is not an object a decode error", async () => {
    // `"abc"` is valid JSON; FastAPI reports it as the wrong type of body, not as bad JSON.
    const reply = await post("/v1/run/", { key: alice, body: '"abc"' });
    expect(reply.status).toBe(422);
    const detail = (reply.body as { detail: { loc: unknown[]; type: string }[] }).detail;
    expect(detail).toHaveLength(1);
    expect(detail[0]?.loc).toEqual(["body"]);
    expect(detail[0]?.type).not.toBe("json_invalid");
  });

  it("reports a body that cannot be decoded as a 422 located in the body, never a 500", async () => {
    const reply = await post("/v1/run/", {
      key: alice,
      body: "this is not gzip",
      headers: { "content-encoding": "gzip" },
    });
    expect(reply.status, reply.text).toBe(422);
    const detail = (reply.body as { detail: { loc: unknown[] }[] }).detail;
    expect(detail[0]?.loc[0]).toBe("body");
  });

  it("reports limit=0 as greater_than_equal", async () => {
    const reply = await get("/v1/run/list?limit=0");
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({
      detail: [
        {
          loc: ["query", "limit"],
          msg: "Input should be greater than or equal to 1",
          type: "greater_than_equal",
        },
      ],
    });
  });

  it("reports limit=1001 as less_than_equal", async () => {
    const reply = await get("/v1/run/list?limit=1001");
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({
      detail: [
        {
          loc: ["query", "limit"],
          msg: "Input should be less than or equal to 1000",
          type: "less_than_equal",
        },
      ],
    });
  });

  it("reports limit=abc as int_parsing", async () => {
    const reply = await get("/v1/run/list?limit=abc");
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({
      detail: [
        {
          loc: ["query", "limit"],
          msg: "Input should be a valid integer, unable to parse string as an integer",
          type: "int_parsing",
        },
      ],
    });
  });

  it("reports a cursor the list never made at query.cursor", async () => {
    const reply = await get("/v1/run/list?cursor=not-a-cursor");
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({
      detail: [
        {
          loc: ["query", "cursor"],
          msg: "Value error, not a cursor of this list",
          type: "value_error",
        },
      ],
    });
  });

  it("reports an id over 128 characters at path.id", async () => {
    const reply = await get(`/v1/run/${"x".repeat(129)}`);
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({
      detail: [
        {
          loc: ["path", "id"],
          msg: "String should have at most 128 characters",
          type: "string_too_long",
        },
      ],
    });
  });

  it("answers a path whose percent-encoding does not decode as an unknown route", async () => {
    const reply = await get("/v1/run/run_%E0%A4%A");
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ detail: "Not Found" });
  });
});

describe("422: inputs are checked against the skill's declared inputs", () => {
  it("reports a missing required input at body.inputs.<key>", async () => {
    const reply = await startRun({ skill_id: TYPED, inputs: { count: 3 } });
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({
      detail: [{ loc: ["body", "inputs", "url"], msg: "Field required", type: "missing" }],
    });
  });

  it("treats absent inputs as no inputs: a required one is missing", async () => {
    const reply = await startRun({ skill_id: TYPED });
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({
      detail: [{ loc: ["body", "inputs", "url"], msg: "Field required", type: "missing" }],
    });
  });

  it("reports an input the skill does not declare as extra_forbidden", async () => {
    const reply = await startRun({ skill_id: TYPED, inputs: { url: "u", colour: "red" } });
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({
      detail: [
        {
          loc: ["body", "inputs", "colour"],
          msg: "Extra inputs are not permitted",
          type: "extra_forbidden",
        },
      ],
    });
  });

  it('reports "abc" for a number input as float_parsing', async () => {
    const reply = await startRun({ skill_id: TYPED, inputs: { url: "u", count: "abc" } });
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({
      detail: [
        {
          loc: ["body", "inputs", "count"],
          msg: "Input should be a valid number, unable to parse string as a number",
          type: "float_parsing",
        },
      ],
    });
  });

  it("reports every faulty input at once", async () => {
    const reply = await startRun({ skill_id: TYPED, inputs: { count: "abc", loud: "maybe" } });
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({
      detail: [
        { loc: ["body", "inputs", "url"], msg: "Field required", type: "missing" },
        {
          loc: ["body", "inputs", "count"],
          msg: "Input should be a valid number, unable to parse string as a number",
          type: "float_parsing",
        },
        {
          loc: ["body", "inputs", "loud"],
          msg: "Input should be a valid boolean, unable to interpret input",
          type: "bool_parsing",
        },
      ],
    });
  });

  it('accepts "42" for a number and "true" for a boolean, and stores them converted', async () => {
    const reply = await startRun({
      skill_id: TYPED,
      inputs: { url: "https://example.com", count: "42", loud: "true" },
    });
    expect(reply.status, reply.text).toBe(200);
    const run = reply.body as RunSession;
    expect(run.inputs).toEqual({ url: "https://example.com", count: 42, loud: true });
    const stored = await get(`/v1/run/${run.id}`);
    expect((stored.body as RunSession).inputs).toEqual({
      url: "https://example.com",
      count: 42,
      loud: true,
    });
  });

  it("applies the defaults of optional inputs that were not supplied", async () => {
    const reply = await startRun({ skill_id: TYPED, inputs: { url: "https://example.com" } });
    expect(reply.status, reply.text).toBe(200);
    // `tags` is optional without a default: it stays absent.
    expect((reply.body as RunSession).inputs).toEqual({
      url: "https://example.com",
      count: 5,
      loud: false,
    });
  });

  it("applies the default of an optional input whose key is also an Object.prototype name", async () => {
    const reply = await startRun({ skill_id: "skill_proto", inputs: {} });
    expect(reply.status, reply.text).toBe(200);
    expect((reply.body as RunSession).inputs).toEqual({ constructor: "d" });
  });

  it("ignores unknown top-level fields of the body", async () => {
    const reply = await startRun({
      skill_id: TYPED,
      inputs: { url: "https://example.com" },
      priority: "high",
      environment: "client",
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).not.toHaveProperty("priority");
    expect((reply.body as RunSession).skill_id).toBe(TYPED);
  });
});

describe("401: a missing, unknown or revoked key", () => {
  async function expectNotAuthenticated(options: CallOptions): Promise<void> {
    const reply = await get("/v1/run/list", options);
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(NOT_AUTHENTICATED);
    expect(reply.headers.get("www-authenticate")).toBe("Bearer");
  }

  it("rejects a request without a key", async () => {
    await expectNotAuthenticated({});
  });

  it("rejects a key nobody issued", async () => {
    await expectNotAuthenticated({ key: "sk_never-issued-000000000000000000000000000000" });
  });

  it("rejects an Authorization header that is not a bearer key", async () => {
    await expectNotAuthenticated({ headers: { authorization: `Basic ${btoa("alice:secret")}` } });
  });

  it("rejects a key once it is revoked", async () => {
    const { key, info } = await server.repos.apiKeys.create("carol");
    expect((await get("/v1/run/list", { key })).status).toBe(200);
    expect(await server.repos.apiKeys.revoke(info.id)).toBe(true);
    await expectNotAuthenticated({ key });
  });

  it("rejects a request without a key before looking at its body", async () => {
    const reply = await post("/v1/run/", { json: {} });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(NOT_AUTHENTICATED);
    expect(reply.headers.get("www-authenticate")).toBe("Bearer");
  });
});

describe("404: another owner's run or skill is not found, never forbidden", () => {
  it("reports an unknown run as Run not found", async () => {
    const reply = await get("/v1/run/run_00000000-0000-7000-8000-000000000000");
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual(RUN_NOT_FOUND);
  });

  it("reports another owner's run as Run not found", async () => {
    const reply = await get(`/v1/run/${bobRun.id}`);
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual(RUN_NOT_FOUND);
  });

  it("does not let another owner cancel a run, and leaves its state as it was", async () => {
    const reply = await post(`/v1/run/${bobRun.id}/cancel`, { key: alice });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual(RUN_NOT_FOUND);
    const own = await get(`/v1/run/${bobRun.id}`, { key: bob });
    expect(own.status).toBe(200);
    expect((own.body as RunSession).state).toBeNull();
    expect((own.body as RunSession).end_time).toBeNull();
  });

  it("reports another owner's run's video as Run not found", async () => {
    const reply = await get(`/v1/run/${bobRun.id}/video_url`);
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual(RUN_NOT_FOUND);
  });

  it("reports an unknown skill as Skill not found", async () => {
    const reply = await get("/v1/skill/skill_unknown");
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual(SKILL_NOT_FOUND);
  });

  it("reports another owner's skill as Skill not found", async () => {
    const reply = await get("/v1/skill/skill_bob");
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual(SKILL_NOT_FOUND);
  });

  it("does not start a run of another owner's skill", async () => {
    const reply = await startRun({ skill_id: "skill_bob" });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual(SKILL_NOT_FOUND);
  });
});

describe("every other error is a JSON detail", () => {
  it("answers a body over 1 MiB with 413 Request body too large", async () => {
    const reply = await post("/v1/run/", { key: alice, body: oversizedRunBody(TYPED) });
    expect(reply.status).toBe(413);
    expect(reply.body).toEqual({ detail: "Request body too large" });
  });

  it("answers unknown routes with a JSON 404, never an HTML page", async () => {
    for (const [method, url] of [
      ["GET", "/v1/nothing-here"],
      ["GET", "/nothing-here"],
      ["POST", "/v1/skill/list"],
      ["DELETE", "/v1/run/list"],
    ] as const) {
      const reply = await call(server.origin, method, url, { key: alice });
      expect(reply.status, `${method} ${url}`).toBe(404);
      expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
      expect(reply.body, `${method} ${url}`).toEqual({ detail: "Not Found" });
    }
  });
});

describe("500: unexpected failures", () => {
  let broken: TestServer;
  let brokenKey: string;

  beforeAll(async () => {
    broken = await startTestServer({
      override: (deps) => ({ ...deps, runs: failingRuns, skills: failingSkills }),
    });
    brokenKey = await broken.keyFor("alice");
  });

  afterAll(async () => {
    await broken?.close();
  });

  it("answers a failing repository with exactly Internal Server Error and no stack trace", async () => {
    for (const [method, url, json] of [
      ["POST", "/v1/run/", { skill_id: "skill_any" }],
      ["GET", "/v1/run/list", undefined],
      ["GET", "/v1/run/run_any", undefined],
      ["POST", "/v1/run/run_any/cancel", undefined],
      ["GET", "/v1/skill/list", undefined],
      ["GET", "/v1/skill/skill_any", undefined],
    ] as const) {
      const reply = await call(broken.origin, method, url, { key: brokenKey, json });
      expect(reply.status, `${method} ${url}`).toBe(500);
      expect(reply.text, `${method} ${url}`).toBe(JSON.stringify(INTERNAL_ERROR));
    }
  });

  it("answers a failing API key store with 500, not with 401 Not authenticated", async () => {
    const failingKeys = {
      ownerOf: async () => {
        throw new Error(FAILURE_MESSAGE);
      },
    } as unknown as ApiKeyRepository;
    const noKeys = await startTestServer({
      override: (deps) => ({ ...deps, apiKeys: failingKeys }),
    });
    try {
      const reply = await call(noKeys.origin, "GET", "/v1/run/list", { key: "sk_any" });
      expect(reply.status, reply.text).toBe(500);
      expect(reply.body).toEqual(INTERNAL_ERROR);
      expect(reply.headers.get("www-authenticate")).toBeNull();
    } finally {
      await noKeys.close();
    }
  });

  it("answers a response that breaks the contract with 500, not with a 422 about the response", async () => {
    // A repository that returns a run without the fields the contract requires.
    const corruptRuns = {
      ...failingRuns,
      get: async () => ({ id: "run_corrupt", state: null }),
    } as unknown as typeof failingRuns;
    const corrupt = await startTestServer({
      override: (deps) => ({ ...deps, runs: corruptRuns }),
    });
    try {
      const key = await corrupt.keyFor("alice");
      const reply = await call(corrupt.origin, "GET", "/v1/run/run_corrupt", { key });
      expect(reply.status, reply.text).toBe(500);
      expect(reply.body).toEqual(INTERNAL_ERROR);
    } finally {
      await corrupt.close();
    }
  });
});
