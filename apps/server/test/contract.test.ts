import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NewRunEvent, toRunEventRow } from "../src/db/repositories/run-events.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import {
  FAILURE_MESSAGE,
  failingRunEvents,
  failingRuns,
  failingSkills,
  failingVideos,
} from "./support/failing-repositories.js";
import { call, oversizedRunBody, type Reply, skillRecord, TOO_LONG_ID } from "./support/http.js";
import { bodyValidator, declaredResponse, type Operation, operations } from "./support/spec.js";
import { tampered, VIDEO_BYTES, withQuery } from "./support/videos.js";

/**
 * The spec-driven contract suite: every status every operation of openapi.yaml declares is
 * provoked over real HTTP, and the response is checked against what the spec declares for it.
 */

interface Ctx {
  /** The real server. */
  main: TestServer;
  /** The same server whose run and skill repositories fail on every call. */
  broken: TestServer;
  alice: string;
  bob: string;
  /** alice's key on the broken server. */
  brokenKey: string;
  /** A queued run of alice's (without a video), and one of bob's. */
  aliceRun: string;
  bobRun: string;
  /** Two runs of alice's with VIDEO_BYTES as their video. */
  videoRun: string;
  otherVideoRun: string;
}

/** One way to provoke a status; `check` adds what the generic checks cannot know. */
interface Provocation {
  name: string;
  send(ctx: Ctx): Promise<Reply>;
  check?(reply: Reply, ctx: Ctx): void;
}

/** A declared status the server cannot send yet, and why; shown as a todo, never silently. */
interface Unreachable {
  unreachable: string;
}

type Table = Record<string, Record<string, Provocation[] | Unreachable>>;

const ALICE_SKILL = "skill_contract";

/** A step log with every optional field of an event in use. */
const SAMPLE_EVENTS: Omit<NewRunEvent, "runId">[] = [
  { at: new Date(), type: "run_claimed", attempt: 1, data: { worker: "w1" } },
  { at: new Date(), type: "run_started", attempt: 1 },
  { at: new Date(), type: "step_started", step: { index: 0, kind: "log", label: "step 1 (log)" } },
  {
    at: new Date(),
    type: "log",
    step: { index: 0, kind: "log", label: "step 1 (log)" },
    level: "info",
    message: "hello",
  },
  {
    at: new Date(),
    type: "step_failed",
    step: { index: 1, id: "fetch", kind: "http", label: "fetch" },
    attempt: 1,
    durationMs: 12,
    message: "HTTP 500",
    data: { will_retry: false },
  },
  { at: new Date(), type: "run_failed", durationMs: 40, message: "fetch: HTTP 500" },
];
const BOB_SKILL = "skill_bobs";
const UNKNOWN_KEY = "sk_this-key-was-never-issued-0000000000000000000";

// The ways to reach every operation without a key, or with one nobody issued.
function unauthorized(send: (ctx: Ctx, key: string | undefined) => Promise<Reply>): Provocation[] {
  return [
    { name: "without a key", send: (ctx) => send(ctx, undefined) },
    { name: "with an unknown key", send: (ctx) => send(ctx, UNKNOWN_KEY) },
  ];
}

function failing(send: (ctx: Ctx) => Promise<Reply>): Provocation[] {
  return [
    {
      name: "when its repository fails",
      send,
      check: (reply) => {
        expect(reply.body).toEqual({ detail: "Internal Server Error" });
        expect(reply.text).not.toContain(FAILURE_MESSAGE);
      },
    },
  ];
}

async function newRun(ctx: Ctx): Promise<string> {
  const run = await ctx.main.repos.runs.create({
    owner: "alice",
    skill: { id: ALICE_SKILL, name: "Contract" },
    inputs: {},
  });
  return run.id;
}

/** The signed address of a run's video, as alice gets it from the API. */
async function signedUrl(ctx: Ctx, runId: string): Promise<string> {
  const reply = await call(ctx.main.origin, "GET", `/v1/run/${runId}/video_url`, {
    key: ctx.alice,
  });
  expect(reply.status, reply.text).toBe(200);
  return reply.body as string;
}

/** GET of the run's signed video address, without a key, with `headers`. */
async function fetchVideo(ctx: Ctx, headers: Record<string, string> = {}): Promise<Reply> {
  return call(ctx.main.origin, "GET", await signedUrl(ctx, ctx.videoRun), { headers });
}

const table: Table = {
  startRun: {
    "200": [
      {
        name: "a run of the caller's skill",
        send: (ctx) =>
          call(ctx.main.origin, "POST", "/v1/run/", {
            key: ctx.alice,
            json: { skill_id: ALICE_SKILL, inputs: { query: "shoes" } },
          }),
      },
    ],
    "401": unauthorized((ctx, key) =>
      call(ctx.main.origin, "POST", "/v1/run/", { key, json: { skill_id: ALICE_SKILL } }),
    ),
    "404": [
      {
        name: "an unknown skill",
        send: (ctx) =>
          call(ctx.main.origin, "POST", "/v1/run/", {
            key: ctx.alice,
            json: { skill_id: "skill_nobody_has" },
          }),
      },
      {
        name: "another owner's skill",
        send: (ctx) =>
          call(ctx.main.origin, "POST", "/v1/run/", {
            key: ctx.alice,
            json: { skill_id: BOB_SKILL },
          }),
      },
    ],
    "413": [
      {
        name: "a body over 1 MiB",
        send: (ctx) =>
          call(ctx.main.origin, "POST", "/v1/run/", {
            key: ctx.alice,
            body: oversizedRunBody(ALICE_SKILL),
          }),
      },
    ],
    "422": [
      {
        name: "a body without skill_id",
        send: (ctx) => call(ctx.main.origin, "POST", "/v1/run/", { key: ctx.alice, json: {} }),
      },
      {
        name: "an input the skill does not declare",
        send: (ctx) =>
          call(ctx.main.origin, "POST", "/v1/run/", {
            key: ctx.alice,
            json: { skill_id: ALICE_SKILL, inputs: { colour: "red" } },
          }),
      },
    ],
    "500": failing((ctx) =>
      call(ctx.broken.origin, "POST", "/v1/run/", {
        key: ctx.brokenKey,
        json: { skill_id: ALICE_SKILL },
      }),
    ),
  },

  listRuns: {
    "200": [
      {
        name: "a page with more runs after it",
        send: (ctx) => call(ctx.main.origin, "GET", "/v1/run/list?limit=1", { key: ctx.alice }),
        check: (reply) => {
          expect(reply.body).toHaveLength(1);
          expect(reply.headers.get("link")).toMatch(/^<[^>]+[?&]cursor=[^>]+>; rel="next"$/);
        },
      },
      {
        name: "the last page",
        send: (ctx) => call(ctx.main.origin, "GET", "/v1/run/list", { key: ctx.alice }),
        check: (reply) => {
          expect((reply.body as unknown[]).length).toBeGreaterThan(1);
          expect(reply.headers.get("link")).toBeNull();
        },
      },
    ],
    "401": unauthorized((ctx, key) => call(ctx.main.origin, "GET", "/v1/run/list", { key })),
    "422": [
      {
        name: "limit=0",
        send: (ctx) => call(ctx.main.origin, "GET", "/v1/run/list?limit=0", { key: ctx.alice }),
      },
      {
        name: "an unknown state_filter",
        send: (ctx) =>
          call(ctx.main.origin, "GET", "/v1/run/list?state_filter=running", { key: ctx.alice }),
      },
      {
        name: "a cursor this list never made",
        send: (ctx) =>
          call(ctx.main.origin, "GET", "/v1/run/list?cursor=bm90LWEtY3Vyc29y", { key: ctx.alice }),
      },
    ],
    "500": failing((ctx) => call(ctx.broken.origin, "GET", "/v1/run/list", { key: ctx.brokenKey })),
  },

  getRun: {
    "200": [
      {
        name: "the caller's run",
        send: (ctx) => call(ctx.main.origin, "GET", `/v1/run/${ctx.aliceRun}`, { key: ctx.alice }),
        check: (reply) => expect((reply.body as { video_url: unknown }).video_url).toBeNull(),
      },
      {
        name: "the caller's run with a video",
        send: (ctx) => call(ctx.main.origin, "GET", `/v1/run/${ctx.videoRun}`, { key: ctx.alice }),
        check: (reply, ctx) =>
          expect((reply.body as { video_url: unknown }).video_url).toMatch(
            new RegExp(`^${ctx.main.origin}/v1/run/${ctx.videoRun}/video\\?`),
          ),
      },
    ],
    "401": unauthorized((ctx, key) =>
      call(ctx.main.origin, "GET", `/v1/run/${ctx.aliceRun}`, { key }),
    ),
    "404": [
      {
        name: "an unknown run",
        send: (ctx) =>
          call(ctx.main.origin, "GET", "/v1/run/run_00000000-0000-7000-8000-000000000000", {
            key: ctx.alice,
          }),
      },
      {
        name: "another owner's run",
        send: (ctx) => call(ctx.main.origin, "GET", `/v1/run/${ctx.bobRun}`, { key: ctx.alice }),
      },
    ],
    "422": [
      {
        name: "an id over 128 characters",
        send: (ctx) => call(ctx.main.origin, "GET", `/v1/run/${TOO_LONG_ID}`, { key: ctx.alice }),
      },
    ],
    "500": failing((ctx) =>
      call(ctx.broken.origin, "GET", "/v1/run/run_anything", { key: ctx.brokenKey }),
    ),
  },

  cancelRun: {
    "200": [
      {
        name: "a queued run of the caller's",
        send: async (ctx) =>
          call(ctx.main.origin, "POST", `/v1/run/${await newRun(ctx)}/cancel`, { key: ctx.alice }),
        check: (reply) => expect(reply.body).toBe("cancel"),
      },
    ],
    "401": unauthorized(async (ctx, key) =>
      call(ctx.main.origin, "POST", `/v1/run/${await newRun(ctx)}/cancel`, { key }),
    ),
    "413": [
      {
        name: "a body over 1 MiB (a cancel takes none, but any body is read)",
        send: async (ctx) =>
          call(ctx.main.origin, "POST", `/v1/run/${await newRun(ctx)}/cancel`, {
            key: ctx.alice,
            body: oversizedRunBody(ALICE_SKILL),
          }),
      },
    ],
    "404": [
      {
        name: "an unknown run",
        send: (ctx) =>
          call(ctx.main.origin, "POST", "/v1/run/run_unknown/cancel", { key: ctx.alice }),
      },
      {
        name: "another owner's run",
        send: (ctx) =>
          call(ctx.main.origin, "POST", `/v1/run/${ctx.bobRun}/cancel`, { key: ctx.alice }),
      },
    ],
    "422": [
      {
        name: "an id over 128 characters",
        send: (ctx) =>
          call(ctx.main.origin, "POST", `/v1/run/${TOO_LONG_ID}/cancel`, { key: ctx.alice }),
      },
    ],
    "500": failing((ctx) =>
      call(ctx.broken.origin, "POST", "/v1/run/run_anything/cancel", { key: ctx.brokenKey }),
    ),
  },

  listRunEvents: {
    "200": [
      {
        name: "a run with events, one page",
        send: (ctx) =>
          call(ctx.main.origin, "GET", `/v1/run/${ctx.aliceRun}/events`, { key: ctx.alice }),
        check: (reply) => {
          expect((reply.body as { type: string }[]).map((e) => e.type)).toEqual(
            SAMPLE_EVENTS.map((e) => e.type),
          );
          expect(reply.headers.get("link")).toBeNull();
        },
      },
      {
        name: "a run with events, paged",
        send: (ctx) =>
          call(ctx.main.origin, "GET", `/v1/run/${ctx.aliceRun}/events?limit=2`, {
            key: ctx.alice,
          }),
        check: (reply) => {
          expect(reply.body).toHaveLength(2);
          expect(reply.headers.get("link")).toContain(`/events?limit=2&cursor=`);
        },
      },
      {
        name: "a queued run without events",
        send: async (ctx) =>
          call(ctx.main.origin, "GET", `/v1/run/${await newRun(ctx)}/events`, { key: ctx.alice }),
        check: (reply) => expect(reply.body).toEqual([]),
      },
    ],
    "401": unauthorized((ctx, key) =>
      call(ctx.main.origin, "GET", `/v1/run/${ctx.aliceRun}/events`, { key }),
    ),
    "404": [
      {
        name: "an unknown run",
        send: (ctx) =>
          call(ctx.main.origin, "GET", "/v1/run/run_unknown/events", { key: ctx.alice }),
      },
      {
        name: "another owner's run",
        send: (ctx) =>
          call(ctx.main.origin, "GET", `/v1/run/${ctx.bobRun}/events`, { key: ctx.alice }),
      },
    ],
    "422": [
      {
        name: "a limit over 1000",
        send: (ctx) =>
          call(ctx.main.origin, "GET", `/v1/run/${ctx.aliceRun}/events?limit=1001`, {
            key: ctx.alice,
          }),
      },
      {
        name: "a cursor that is not one",
        send: (ctx) =>
          call(ctx.main.origin, "GET", `/v1/run/${ctx.aliceRun}/events?cursor=nonsense`, {
            key: ctx.alice,
          }),
        check: (reply) =>
          expect(reply.body).toEqual({
            detail: [
              {
                loc: ["query", "cursor"],
                msg: "Value error, not a cursor of this list",
                type: "value_error",
              },
            ],
          }),
      },
    ],
    "500": failing((ctx) =>
      call(ctx.broken.origin, "GET", "/v1/run/run_anything/events", { key: ctx.brokenKey }),
    ),
  },

  getRunVideoUrl: {
    "200": [
      {
        name: "a run with a video",
        send: (ctx) =>
          call(ctx.main.origin, "GET", `/v1/run/${ctx.videoRun}/video_url`, { key: ctx.alice }),
        check: (reply, ctx) =>
          expect(reply.body).toMatch(
            new RegExp(
              `^${ctx.main.origin}/v1/run/${ctx.videoRun}/video\\?expires=\\d+&signature=[\\w-]{43}$`,
            ),
          ),
      },
    ],
    "401": unauthorized((ctx, key) =>
      call(ctx.main.origin, "GET", `/v1/run/${ctx.aliceRun}/video_url`, { key }),
    ),
    "404": [
      {
        name: "a run without a video",
        send: (ctx) =>
          call(ctx.main.origin, "GET", `/v1/run/${ctx.aliceRun}/video_url`, { key: ctx.alice }),
        check: (reply) => expect(reply.body).toEqual({ detail: "Run has no video" }),
      },
      {
        name: "an unknown run",
        send: (ctx) =>
          call(ctx.main.origin, "GET", "/v1/run/run_unknown/video_url", { key: ctx.alice }),
        check: (reply) => expect(reply.body).toEqual({ detail: "Run not found" }),
      },
      {
        name: "another owner's run",
        send: (ctx) =>
          call(ctx.main.origin, "GET", `/v1/run/${ctx.bobRun}/video_url`, { key: ctx.alice }),
        check: (reply) => expect(reply.body).toEqual({ detail: "Run not found" }),
      },
    ],
    "422": [
      {
        name: "an id over 128 characters",
        send: (ctx) =>
          call(ctx.main.origin, "GET", `/v1/run/${TOO_LONG_ID}/video_url`, { key: ctx.alice }),
      },
    ],
    "500": failing((ctx) =>
      call(ctx.broken.origin, "GET", "/v1/run/run_anything/video_url", { key: ctx.brokenKey }),
    ),
  },

  getRunVideo: {
    "200": [
      {
        name: "a signed address, without a key",
        send: (ctx) => fetchVideo(ctx),
        check: (reply) => {
          expect(reply.bytes).toEqual(VIDEO_BYTES);
          expect(reply.headers.get("accept-ranges")).toBe("bytes");
        },
      },
    ],
    "206": [
      {
        name: "Range: bytes=0-9",
        send: (ctx) => fetchVideo(ctx, { range: "bytes=0-9" }),
        check: (reply) => {
          expect(reply.headers.get("content-range")).toBe(`bytes 0-9/${VIDEO_BYTES.length}`);
          expect(reply.bytes).toEqual(VIDEO_BYTES.slice(0, 10));
        },
      },
    ],
    "304": [
      {
        name: "If-None-Match with the video's ETag",
        send: async (ctx) => {
          const etag = (await fetchVideo(ctx)).headers.get("etag");
          expect(etag).toBeTruthy();
          // fetch() would add `Cache-Control: no-cache` to a conditional request, which asks for
          // the full body; a browser revalidating its copy sends max-age=0.
          return fetchVideo(ctx, { "if-none-match": etag as string, "cache-control": "max-age=0" });
        },
      },
    ],
    "403": [
      {
        name: "a tampered signature",
        send: async (ctx) => {
          const url = await signedUrl(ctx, ctx.videoRun);
          const signature = new URL(url).searchParams.get("signature") as string;
          return call(ctx.main.origin, "GET", withQuery(url, { signature: tampered(signature) }));
        },
        check: (reply) => expect(reply.body).toEqual({ detail: "Invalid video signature" }),
      },
      {
        name: "another run's signature",
        send: async (ctx) => {
          const other = new URL(await signedUrl(ctx, ctx.otherVideoRun)).search;
          return call(ctx.main.origin, "GET", `/v1/run/${ctx.videoRun}/video${other}`);
        },
        check: (reply) => expect(reply.body).toEqual({ detail: "Invalid video signature" }),
      },
    ],
    "404": [
      {
        name: "a genuine address of a run without a video",
        send: (ctx) => call(ctx.main.origin, "GET", ctx.main.videoUrlFor(ctx.aliceRun)),
        check: (reply) => expect(reply.body).toEqual({ detail: "Run has no video" }),
      },
    ],
    "412": [
      {
        name: "If-Match with another ETag",
        send: (ctx) => fetchVideo(ctx, { "if-match": '"not-this-video"' }),
      },
    ],
    "416": [
      {
        name: "a range past the end",
        send: (ctx) => fetchVideo(ctx, { range: `bytes=${VIDEO_BYTES.length}-` }),
        check: (reply) =>
          expect(reply.headers.get("content-range")).toBe(`bytes */${VIDEO_BYTES.length}`),
      },
    ],
    "422": [
      {
        name: "no signature",
        send: async (ctx) =>
          call(
            ctx.main.origin,
            "GET",
            withQuery(await signedUrl(ctx, ctx.videoRun), { signature: undefined }),
          ),
        check: (reply) =>
          expect(reply.body).toEqual({
            detail: [{ loc: ["query", "signature"], msg: "Field required", type: "missing" }],
          }),
      },
      {
        name: "expires that is not an integer",
        send: async (ctx) =>
          call(
            ctx.main.origin,
            "GET",
            withQuery(await signedUrl(ctx, ctx.videoRun), { expires: "soon" }),
          ),
      },
    ],
    "500": failing((ctx) => call(ctx.broken.origin, "GET", ctx.broken.videoUrlFor("run_anything"))),
  },

  listSkills: {
    "200": [
      {
        name: "the caller's skills",
        send: (ctx) => call(ctx.main.origin, "GET", "/v1/skill/list", { key: ctx.alice }),
        check: (reply) => expect(reply.body).toHaveLength(1),
      },
    ],
    "401": unauthorized((ctx, key) => call(ctx.main.origin, "GET", "/v1/skill/list", { key })),
    "500": failing((ctx) =>
      call(ctx.broken.origin, "GET", "/v1/skill/list", { key: ctx.brokenKey }),
    ),
  },

  getSkill: {
    "200": [
      {
        name: "the caller's skill",
        send: (ctx) => call(ctx.main.origin, "GET", `/v1/skill/${ALICE_SKILL}`, { key: ctx.alice }),
      },
    ],
    "401": unauthorized((ctx, key) =>
      call(ctx.main.origin, "GET", `/v1/skill/${ALICE_SKILL}`, { key }),
    ),
    "404": [
      {
        name: "an unknown skill",
        send: (ctx) => call(ctx.main.origin, "GET", "/v1/skill/skill_unknown", { key: ctx.alice }),
      },
      {
        name: "another owner's skill",
        send: (ctx) => call(ctx.main.origin, "GET", `/v1/skill/${BOB_SKILL}`, { key: ctx.alice }),
      },
    ],
    "422": [
      {
        name: "an id over 128 characters",
        send: (ctx) => call(ctx.main.origin, "GET", `/v1/skill/${TOO_LONG_ID}`, { key: ctx.alice }),
      },
    ],
    "500": failing((ctx) =>
      call(ctx.broken.origin, "GET", `/v1/skill/${ALICE_SKILL}`, { key: ctx.brokenKey }),
    ),
  },
};

const specOperations = operations();

describe("the provocation table covers openapi.yaml exactly", () => {
  it("has a way to provoke every status of every operation the spec declares", () => {
    const missing = specOperations.flatMap((op) =>
      op.statuses
        .filter((status) => table[op.operationId]?.[status] === undefined)
        .map((status) => `${op.operationId} ${status}`),
    );
    expect(missing).toEqual([]);
  });

  it("provokes no operation or status the spec does not declare", () => {
    const declared = new Set(
      specOperations.flatMap((op) => op.statuses.map((s) => `${op.operationId} ${s}`)),
    );
    const extra = Object.entries(table).flatMap(([operationId, statuses]) =>
      Object.keys(statuses)
        .map((status) => `${operationId} ${status}`)
        .filter((entry) => !declared.has(entry)),
    );
    expect(extra).toEqual([]);
  });

  it("gives every way to provoke a status at least one request, or a reason it cannot yet", () => {
    const empty = Object.entries(table).flatMap(([operationId, statuses]) =>
      Object.entries(statuses)
        .filter(([, entry]) =>
          Array.isArray(entry) ? entry.length === 0 : entry.unreachable.trim() === "",
        )
        .map(([status]) => `${operationId} ${status}`),
    );
    expect(empty).toEqual([]);
  });
});

// What every response of the operation and status must satisfy, read from the spec.
function expectDeclaredResponse(op: Operation, status: string, reply: Reply): void {
  expect(reply.status, reply.text).toBe(Number(status));
  // The spec's conventions: every response carries X-Request-Id; no HTML error pages.
  expect(reply.headers.get("x-request-id")).toBeTruthy();

  const declared = declaredResponse(op, status);
  for (const [name, header] of Object.entries(declared.headers)) {
    if (header.required) expect(reply.headers.get(name), `header ${name}`).not.toBeNull();
  }
  const mediaTypes = Object.keys(declared.content);
  const contentType = reply.headers.get("content-type") ?? "";
  if (mediaTypes.length === 0) {
    // Declared without content (a 304): there is none.
    expect(reply.bytes).toHaveLength(0);
    return;
  }
  expect(
    mediaTypes.some((t) => contentType.startsWith(t)),
    `content-type ${contentType}`,
  ).toBe(true);
  if (!contentType.startsWith("application/json")) {
    // A binary body (a video) has no structure to check; its provocation compares the bytes.
    expect(reply.bytes.length).toBeGreaterThan(0);
    return;
  }

  const validate = bodyValidator(op, status);
  const valid = validate(reply.body);
  expect(validate.errors ?? [], `body ${reply.text}`).toEqual([]);
  expect(valid).toBe(true);

  // A plain `{"detail": "…"}` error has a fixed message: the spec's example(s) say which.
  if (typeof (reply.body as { detail?: unknown }).detail === "string") {
    const media = declared.content["application/json"];
    const examples = [
      ...(media?.example === undefined ? [] : [media.example]),
      ...Object.values(media?.examples ?? {}).map((e) => e.value),
    ];
    if (examples.length > 0) expect(examples).toContainEqual(reply.body);
  }

  if ("WWW-Authenticate" in declared.headers) {
    expect(reply.headers.get("www-authenticate")).toBe("Bearer");
  }
  if ("Link" in declared.headers) {
    const link = reply.headers.get("link");
    if (link !== null) expect(link).toMatch(/^<[^>]+>; rel="next"$/);
  }
}

describe("every operation answers each declared status as openapi.yaml declares it", () => {
  const ctx = {} as Ctx;

  beforeAll(async () => {
    ctx.main = await startTestServer();
    ctx.broken = await startTestServer({
      override: (deps) => ({
        ...deps,
        runs: failingRuns,
        runEvents: failingRunEvents,
        skills: failingSkills,
        videos: failingVideos,
      }),
    });
    ctx.alice = await ctx.main.keyFor("alice");
    ctx.bob = await ctx.main.keyFor("bob");
    ctx.brokenKey = await ctx.broken.keyFor("alice");
    await ctx.main.importSkills("alice", [
      skillRecord(ALICE_SKILL, "Contract", [
        { id: "in_query", json_key: "query", data_type: "string", required: false, default: "x" },
      ]),
    ]);
    await ctx.main.importSkills("bob", [skillRecord(BOB_SKILL, "Bob's")]);
    ctx.aliceRun = await newRun(ctx);
    // Written as a worker writes them, straight into the log: no worker holds this run.
    await ctx.main.db.prisma.runEvent.createMany({
      data: SAMPLE_EVENTS.map((event) => toRunEventRow({ ...event, runId: ctx.aliceRun })),
    });
    await newRun(ctx);
    const bobRun = await ctx.main.repos.runs.create({
      owner: "bob",
      skill: { id: BOB_SKILL, name: "Bob's" },
      inputs: {},
    });
    ctx.bobRun = bobRun.id;
    ctx.videoRun = await newRun(ctx);
    ctx.otherVideoRun = await newRun(ctx);
    await ctx.main.putVideo(ctx.videoRun, VIDEO_BYTES);
    await ctx.main.putVideo(ctx.otherVideoRun, VIDEO_BYTES);
  });

  afterAll(async () => {
    await ctx.main?.close();
    await ctx.broken?.close();
  });

  for (const op of specOperations) {
    describe(`${op.operationId} (${op.method} ${op.path})`, () => {
      for (const status of op.statuses) {
        const entry = table[op.operationId]?.[status];
        if (entry === undefined) continue; // reported by the coverage tests above
        if (!Array.isArray(entry)) {
          it.todo(`${status}: ${entry.unreachable}`);
          continue;
        }
        for (const provocation of entry) {
          it(`${status} for ${provocation.name}`, async () => {
            const reply = await provocation.send(ctx);
            expectDeclaredResponse(op, status, reply);
            provocation.check?.(reply, ctx);
          });
        }
      }
    });
  }
});
