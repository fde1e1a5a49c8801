import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunSession } from "../src/domain/api-types.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { type CallOptions, call, type Reply, rawRequest, skillRecord } from "./support/http.js";
import { VIDEO_BYTES } from "./support/videos.js";

/**
 * Values PostgreSQL cannot store or compare, forged cursors, deep inputs, oversized headers,
 * HEAD requests and Pydantic's number parsing: a 4xx in the contract's shape, never a 500.
 * Run on both flavours (TEST_FLAVOUR=postgres): the 500s were PostgreSQL's.
 */

let server: TestServer;
let alice: string;
let run: RunSession;

const SKILL = "skill_any";
const UNSTORABLE_TEXT = {
  msg: "Value error, text must not contain NUL characters or unpaired surrogates",
  type: "value_error",
};
const NOT_A_CURSOR = {
  loc: ["query", "cursor"],
  msg: "Value error, not a cursor of this list",
  type: "value_error",
};

beforeAll(async () => {
  server = await startTestServer();
  alice = await server.keyFor("alice");
  await server.importSkills("alice", [
    skillRecord(SKILL, "Any", [
      { id: "in_s", json_key: "s", data_type: "string", required: false },
      { id: "in_o", json_key: "o", data_type: "object", required: false },
      { id: "in_n", json_key: "n", data_type: "number", required: false },
    ]),
  ]);
  run = await server.repos.runs.create({
    owner: "alice",
    skill: { id: SKILL, name: "Any" },
    inputs: {},
  });
});

afterAll(async () => {
  await server?.close();
});

function get(url: string, options: CallOptions = { key: alice }) {
  return call(server.origin, "GET", url, options);
}

function startRun(json: unknown): Promise<Reply> {
  return call(server.origin, "POST", "/v1/run/", { key: alice, json });
}

/** A cursor as the server encodes them, around any pair. */
function cursor(pair: [unknown, unknown]): string {
  return Buffer.from(JSON.stringify(pair)).toString("base64url");
}

describe("NULs and unpaired surrogates never reach the database", () => {
  it.each([
    ["/v1/run/run_%00", "Run not found"],
    ["/v1/run/run_%00/events", "Run not found"],
    ["/v1/run/run_%00/video_url", "Run not found"],
    ["/v1/skill/skill_any%00", "Skill not found"],
  ])("GET %s is a 404", async (url, detail) => {
    const reply = await get(url);
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ detail });
  });

  it("POST /run/{id}/cancel with a NUL in the id is a 404", async () => {
    const reply = await call(server.origin, "POST", "/v1/run/run_%00/cancel", { key: alice });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ detail: "Run not found" });
  });

  it.each([
    ["skill_id=a%00b", ["query", "skill_id"]],
    ["skill_id=%ED%A0%80", null], // not UTF-8: decoded as U+FFFD, a plain unknown skill
  ])("GET /run/list?%s", async (query, loc) => {
    const reply = await get(`/v1/run/list?${query}`);
    if (loc === null) {
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual([]);
    } else {
      expect(reply.status).toBe(422);
      expect(reply.body).toEqual({ detail: [{ loc, ...UNSTORABLE_TEXT }] });
    }
  });

  it.each([["skill_any\u0000"], ["skill_\ud800"], ["\udfffskill"]])(
    "a skill_id %j is a 422 at body.skill_id",
    async (skillId) => {
      const reply = await startRun({ skill_id: skillId });
      expect(reply.status).toBe(422);
      expect(reply.body).toEqual({ detail: [{ loc: ["body", "skill_id"], ...UNSTORABLE_TEXT }] });
    },
  );

  it("stores NULs and unpaired surrogates inside inputs and gives them back unchanged", async () => {
    const inputs = { s: "a\u0000b\ud800c", o: { "k\u0000": ["\u0000", "\udc00"] } };
    const started = await startRun({ skill_id: SKILL, inputs });
    expect(started.status).toBe(200);
    expect((started.body as RunSession).inputs).toEqual(inputs);
    const back = await get(`/v1/run/${(started.body as RunSession).id}`);
    expect(back.status).toBe(200);
    expect((back.body as RunSession).inputs).toEqual(inputs);
  });
});

describe("dot segments name no route", () => {
  it.each([
    "/v1/run/%2E/video?expires=1&signature=x",
    "/v1/run/%2e%2E/events",
    "/v1/run/./cancel",
    "/v1/skill/%2E%2E",
  ])("%s is FastAPI's plain 404, whoever asks", async (path) => {
    // Sent as written: fetch would resolve the dot segments before the server saw them. Without
    // a key: a route that does not exist is not a matter of authentication.
    const reply = await rawRequest(server.origin, path.endsWith("cancel") ? "POST" : "GET", path);
    expect(reply.status).toBe(404);
    expect(JSON.parse(reply.body)).toEqual({ detail: "Not Found" });
  });
});

describe("cursors accept only what the server could have issued", () => {
  it.each([
    ["year 0", ["0000-01-01T00:00:00.000Z", "run_01a209e7-625b-76dd-98ea-90288c4dc518"]],
    [
      "a negative year",
      ["-000001-01-01T00:00:00.000Z", "run_01a209e7-625b-76dd-98ea-90288c4dc518"],
    ],
    [
      "a year before 1970",
      ["1969-12-31T23:59:59.999Z", "run_01a209e7-625b-76dd-98ea-90288c4dc518"],
    ],
    [
      "a year past 9999",
      ["+010000-01-01T00:00:00.000Z", "run_01a209e7-625b-76dd-98ea-90288c4dc518"],
    ],
    ["a NUL in the id", ["2026-01-01T00:00:00.000Z", "run_\u0000"]],
    ["an id that is no run id", ["2026-01-01T00:00:00.000Z", "x".repeat(300)]],
  ] as [string, [unknown, unknown]][])("refuses a run list cursor with %s", async (_name, pair) => {
    const reply = await get(`/v1/run/list?cursor=${cursor(pair)}`);
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({ detail: [NOT_A_CURSOR] });
  });

  it("still accepts the earliest and latest dates the server could have stamped", async () => {
    for (const at of ["1970-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z"]) {
      const reply = await get(
        `/v1/run/list?cursor=${cursor([at, "run_01a209e7-625b-76dd-98ea-90288c4dc518"])}`,
      );
      expect(reply.status).toBe(200);
    }
  });

  it.each([[2 ** 31], [2 ** 40], [-1], [1.5]])("refuses an event cursor at id %d", async (id) => {
    const reply = await get(`/v1/run/${run.id}/events?cursor=${cursor(["event", id])}`);
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({ detail: [NOT_A_CURSOR] });
  });

  it("accepts the largest event id", async () => {
    const reply = await get(`/v1/run/${run.id}/events?cursor=${cursor(["event", 2 ** 31 - 1])}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual([]);
  });
});

describe("inputs' depth and size are limited", () => {
  it("answers inputs nested 5,000 deep in a 10 KB body with a 422 at body.inputs", async () => {
    const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`;
    const reply = await call(server.origin, "POST", "/v1/run/", {
      key: alice,
      body: `{"skill_id":"${SKILL}","inputs":{"o":{"a":${deep}}}}`,
    });
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({
      detail: [
        {
          loc: ["body", "inputs"],
          msg: "Value error, inputs must not be nested more than 32 levels deep",
          type: "value_error",
        },
      ],
    });
  });

  it("measures inputs given as JSON text once parsed", async () => {
    const deep = `{"a":${"[".repeat(40)}${"]".repeat(40)}}`;
    const reply = await startRun({ skill_id: SKILL, inputs: { o: deep } });
    expect(reply.status).toBe(422);
    expect((reply.body as { detail: { loc: unknown }[] }).detail[0]?.loc).toEqual([
      "body",
      "inputs",
    ]);
  });

  it("answers inputs over 256 KiB of JSON with a 422 at body.inputs", async () => {
    const reply = await startRun({ skill_id: SKILL, inputs: { s: "x".repeat(256 * 1024) } });
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({
      detail: [
        {
          loc: ["body", "inputs"],
          msg: `Value error, inputs must not be larger than 262144 bytes as JSON (got ${256 * 1024 + 8})`,
          type: "value_error",
        },
      ],
    });
  });
});

describe("numbers parse as Pydantic parses them", () => {
  it.each([["0x10"], ["0b1"], ["0o7"], ["Infinity!"], ["1 2"], [""], ["1e"], ["_1"], ["1__0"]])(
    "refuses %j for a number input as float_parsing",
    async (text) => {
      const reply = await startRun({ skill_id: SKILL, inputs: { n: text } });
      expect(reply.status).toBe(422);
      expect(reply.body).toEqual({
        detail: [
          {
            loc: ["body", "inputs", "n"],
            msg: "Input should be a valid number, unable to parse string as a number",
            type: "float_parsing",
          },
        ],
      });
    },
  );

  it.each([["inf"], ["-Infinity"], ["NaN"], ["1e999"]])(
    "refuses %j, which JSON cannot hold, as finite_number",
    async (text) => {
      const reply = await startRun({ skill_id: SKILL, inputs: { n: text } });
      expect(reply.status).toBe(422);
      expect(reply.body).toEqual({
        detail: [
          {
            loc: ["body", "inputs", "n"],
            msg: "Input should be a finite number",
            type: "finite_number",
          },
        ],
      });
    },
  );

  it.each([
    [" 42 ", 42],
    ["+1.5", 1.5],
    ["-.5", -0.5],
    ["5.", 5],
    ["1e2", 100],
    ["1_000", 1000],
    ["2.5E-1", 0.25],
  ])("accepts %j as %d", async (text, value) => {
    const reply = await startRun({ skill_id: SKILL, inputs: { n: text } });
    expect(reply.status).toBe(200);
    expect((reply.body as RunSession).inputs).toEqual({ n: value });
  });

  it.each([["1e2"], ["0x10"], ["1.5"], ["Infinity"]])(
    "refuses limit=%s as int_parsing",
    async (text) => {
      const reply = await get(`/v1/run/list?limit=${text}`);
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
    },
  );

  it.each([["5"], ["%2B5"], ["5.0"], ["%205"]])("accepts limit=%s as 5", async (text) => {
    const reply = await get(`/v1/run/list?limit=${text}`);
    expect(reply.status).toBe(200);
  });
});

describe("requests Node refuses itself", () => {
  it("answers headers over the limit with a 431 and a JSON body", async () => {
    const reply = await get("/v1/skill/list", {
      key: alice,
      headers: { "x-padding": "a".repeat(20_000) },
    });
    expect(reply.status).toBe(431);
    expect(reply.headers.get("content-type")).toBe("application/json");
    expect(reply.body).toEqual({ detail: "Request header fields too large" });
  });
});

describe("HEAD works wherever GET does", () => {
  it("answers HEAD of an operation with GET's status and headers and no body", async () => {
    const got = await get(`/v1/run/${run.id}`);
    const head = await call(server.origin, "HEAD", `/v1/run/${run.id}`, { key: alice });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe(got.headers.get("content-type"));
    expect(head.headers.get("content-length")).toBe(got.headers.get("content-length"));
    expect(head.text).toBe("");
  });

  it("answers HEAD with GET's errors: 401 without a key, 404 for an unknown run", async () => {
    const anonymous = await call(server.origin, "HEAD", `/v1/run/${run.id}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe("Bearer");
    const unknown = await call(server.origin, "HEAD", "/v1/run/run_unknown", { key: alice });
    expect(unknown.status).toBe(404);
  });

  it("answers HEAD of a signed video address with its length and no body", async () => {
    await server.putVideo(run.id, VIDEO_BYTES);
    const head = await call(server.origin, "HEAD", server.videoUrlFor(run.id));
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("video/webm");
    expect(head.headers.get("content-length")).toBe(String(VIDEO_BYTES.length));
    expect(head.bytes.length).toBe(0);
  });

  it("still refuses HEAD where there is no GET", async () => {
    const reply = await call(server.origin, "HEAD", "/v1/run/", { key: alice });
    expect(reply.status).toBe(404);
  });
});
