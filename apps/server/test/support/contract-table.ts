import { expect } from "vitest";
import type { NewRunEvent } from "../../src/db/repositories/run-events.js";
import { startTestServer, type TestServer } from "../../src/test-support/test-server.js";
import { AGENT_SKILL, agentRows } from "./contract-agents.js";
import { addScopeAndKeyRows } from "./contract-keys.js";
import { liveRows } from "./contract-live.js";
import { metricsRows } from "./contract-metrics.js";
import { profileRows } from "./contract-profiles.js";
import { rerunRows } from "./contract-reruns.js";
import { scheduleRows } from "./contract-schedules.js";
import { FAILURE_MESSAGE } from "./failing-repositories.js";
import {
  call,
  callStream,
  oversizedRunBody,
  type Reply,
  skillRecord,
  TOO_LONG_ID,
} from "./http.js";
import { openSse } from "./sse.js";
import { tampered, VIDEO_BYTES, withQuery } from "./videos.js";

/**
 * The spec-driven contract suite's table: for every operation of openapi.yaml, each status it
 * declares and the ways to provoke it over real HTTP. test/contract/ runs it, one file per
 * resource (./contract.ts says which operations each holds).
 */

export interface Ctx {
  /** The real server. */
  main: TestServer;
  /** The same server whose run and skill repositories fail on every call. */
  broken: TestServer;
  /** A server that allows each owner one request a minute (RATE_LIMIT_PER_MINUTE=1). */
  limited: TestServer;
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
  /** A run of alice's with FILE_BYTES as its file FILE_NAME, and one of bob's with a file. */
  fileRun: string;
  bobFileRun: string;
}

/** One way to provoke a status; `check` adds what the generic checks cannot know. */
export interface Provocation {
  name: string;
  send(ctx: Ctx): Promise<Reply>;
  check?(reply: Reply, ctx: Ctx): void;
}

/** A declared status the server cannot send yet, and why; shown as a todo, never silently. */
export interface Unreachable {
  unreachable: string;
}

export type Table = Record<string, Record<string, Provocation[] | Unreachable>>;

export const ALICE_SKILL = "skill_contract";

/** A step log with every optional field of an event in use. */
export const SAMPLE_EVENTS: Omit<NewRunEvent, "runId">[] = [
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
export const BOB_SKILL = "skill_bobs";
export const FILE_NAME = "report.csv";
export const FILE_BYTES = new TextEncoder().encode("number,amount\nINV-1,120.50\n");
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

/** Where contract endpoints point: allowed by the test server's rules, and nothing listens. */
const NOWHERE = "http://127.0.0.1:9/contract-hook";
const UNKNOWN_WEBHOOK = "wh_0190a9f4-6c1b-7d3a-9b1e-2f4c5d6e7f80";

/** A new endpoint of `owner`'s (alice's by default); returns its id. */
async function newWebhook(ctx: Ctx, owner = "alice"): Promise<string> {
  const created = await ctx.main.repos.webhooks.create(owner, NOWHERE, ["run.finished"]);
  if (created === null) throw new Error("too many contract webhooks");
  return created.id;
}

/**
 * A new endpoint of alice's with one delivery of her queued run that failed once (HTTP 500), as
 * a sender would have left it; it is not due again for an hour.
 */
async function newDelivery(ctx: Ctx): Promise<{ webhookId: string; deliveryId: string }> {
  const webhookId = await newWebhook(ctx);
  const deliveryId = `msg_contract_${webhookId}`;
  const now = new Date();
  await ctx.main.db.prisma.webhookDelivery.create({
    data: {
      id: deliveryId,
      webhookId,
      runId: ctx.aliceRun,
      event: "run.finished",
      body: "{}",
      createdAt: now,
      state: "pending",
      nextAttemptAt: new Date(now.getTime() + 3_600_000),
      attemptCount: 1,
      attempts: { create: { at: now, status: 500, latencyMs: 3, response: "down" } },
    },
  });
  return { webhookId, deliveryId };
}

export async function newRun(ctx: Ctx): Promise<string> {
  const run = await ctx.main.repos.runs.create({
    owner: "alice",
    skill: { id: ALICE_SKILL, name: "Contract" },
    inputs: {},
  });
  return run.id;
}

/**
 * A run of alice's as a worker would have left it: in play (a pause pending, when asked), or
 * paused at an ask whose answer must be a string.
 */
async function runIn(ctx: Ctx, state: "play" | "pause", pauseRequested = false): Promise<string> {
  const id = await newRun(ctx);
  const pausedFor = {
    reason: "ask",
    step: "code",
    prompt: "Code?",
    schema: { type: "string" },
    expires_at: "2099-01-01T00:00:00.000Z",
  };
  await ctx.main.db.prisma.run.update({
    where: { id },
    data: {
      state,
      workerId: "worker_contract",
      pauseRequested,
      pausedFor: state === "pause" ? JSON.stringify(pausedFor) : null,
    },
  });
  return id;
}

/** A small valid skill definition in YAML. */
function skillYaml(id: string, name: string): string {
  return `id: ${id}\nname: ${name}\nsteps:\n  - log: hello\n`;
}

/** alice's PUT of a small skill, as YAML. */
function putYaml(ctx: Ctx, id: string, name: string) {
  return call(ctx.main.origin, "PUT", `/v1/skill/${id}`, {
    key: ctx.alice,
    body: skillYaml(id, name),
    headers: { "content-type": "application/yaml" },
  });
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

/** The signed address of alice's run file, as she gets it from the list. */
async function fileUrl(ctx: Ctx): Promise<string> {
  const reply = await call(ctx.main.origin, "GET", `/v1/run/${ctx.fileRun}/files`, {
    key: ctx.alice,
  });
  expect(reply.status, reply.text).toBe(200);
  return (reply.body as { url: string }[])[0]?.url as string;
}

/** GET of alice's run file at its signed address, without a key, with `headers`. */
async function fetchFile(ctx: Ctx, headers: Record<string, string> = {}): Promise<Reply> {
  return call(ctx.main.origin, "GET", await fileUrl(ctx), { headers });
}

/**
 * What `request` gets while the owner "dave" has every live stream the server allows open (50,
 * OWNER_MAX_STREAMS' default): a 429. The streams are closed again afterwards.
 */
async function withStreamsFull(ctx: Ctx, request: (key: string) => Promise<Reply>): Promise<Reply> {
  const dave = await ctx.main.keyFor("dave");
  const open = await Promise.all(
    Array.from({ length: 50 }, () =>
      openSse(`${ctx.main.baseUrl}/run/stream`, {
        authorization: `Bearer ${dave}`,
      }),
    ),
  );
  try {
    expect(open.every((stream) => stream.status === 200)).toBe(true);
    return await request(dave);
  } finally {
    for (const stream of open) stream.abort();
  }
}

/**
 * A POST /v1/run/ of alice's on a server of its own whose OWNER_MAX_QUEUED is 1, once she has one
 * run queued there: a 429. The server is closed again afterwards.
 */
async function withQueueFull(): Promise<Reply> {
  const server = await startTestServer({ env: { OWNER_MAX_QUEUED: "1" } });
  try {
    const key = await server.keyFor("alice");
    await server.importSkills("alice", [skillRecord(ALICE_SKILL, "Alice's")]);
    const post = () =>
      call(server.origin, "POST", "/v1/run/", { key, json: { skill_id: ALICE_SKILL } });
    const first = await post();
    expect(first.status, first.text).toBe(200);
    return await post();
  } finally {
    await server.close();
  }
}

/** POST /v1/file of one file, as a browser's form sends it. */
async function uploadFile(
  origin: string,
  key: string | undefined,
  bytes: Uint8Array,
  field = "file",
): Promise<Reply> {
  const form = new FormData();
  form.append(field, new Blob([bytes], { type: "text/csv" }), "upload.csv");
  const response = await fetch(`${origin}/v1/file`, {
    method: "POST",
    headers: key === undefined ? {} : { authorization: `Bearer ${key}` },
    body: form,
  });
  const body = new Uint8Array(await response.arrayBuffer());
  const text = new TextDecoder().decode(body);
  return {
    status: response.status,
    headers: response.headers,
    body: text === "" ? text : JSON.parse(text),
    text,
    bytes: body,
  };
}

export const table: Table = {
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
      {
        name: "a repeat of a request with an Idempotency-Key",
        send: async (ctx) => {
          const request = {
            key: ctx.alice,
            json: { skill_id: ALICE_SKILL, inputs: { query: "boots" } },
            headers: { "idempotency-key": "contract-repeat" },
          };
          const first = await call(ctx.main.origin, "POST", "/v1/run/", request);
          expect(first.status, first.text).toBe(200);
          const repeat = await call(ctx.main.origin, "POST", "/v1/run/", request);
          expect((repeat.body as { id: string }).id).toBe((first.body as { id: string }).id);
          return repeat;
        },
        check: (reply) => expect(reply.headers.get("idempotent-replayed")).toBe("true"),
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
      {
        name: "an Idempotency-Key used with another body",
        send: async (ctx) => {
          const headers = { "idempotency-key": "contract-reused" };
          const first = await call(ctx.main.origin, "POST", "/v1/run/", {
            key: ctx.alice,
            json: { skill_id: ALICE_SKILL, inputs: { query: "hats" } },
            headers,
          });
          expect(first.status, first.text).toBe(200);
          return call(ctx.main.origin, "POST", "/v1/run/", {
            key: ctx.alice,
            json: { skill_id: ALICE_SKILL, inputs: { query: "gloves" } },
            headers,
          });
        },
        check: (reply) =>
          expect(reply.body).toMatchObject({
            detail: [{ loc: ["header", "idempotency-key"], type: "idempotency_key_reused" }],
          }),
      },
      {
        name: "an Idempotency-Key with a space",
        send: (ctx) =>
          call(ctx.main.origin, "POST", "/v1/run/", {
            key: ctx.alice,
            json: { skill_id: ALICE_SKILL },
            headers: { "idempotency-key": "two words" },
          }),
        check: (reply) =>
          expect(reply.body).toMatchObject({
            detail: [{ loc: ["header", "idempotency-key"], type: "string_pattern_mismatch" }],
          }),
      },
    ],
    "429": [
      {
        name: "a run more than OWNER_MAX_QUEUED of the owner's waiting",
        send: () => withQueueFull(),
        check: (reply) => expect(reply.headers.get("retry-after")).toBe("10"),
      },
    ],
    "500": [
      ...failing((ctx) =>
        call(ctx.broken.origin, "POST", "/v1/run/", {
          key: ctx.brokenKey,
          json: { skill_id: ALICE_SKILL },
        }),
      ),
      ...failing((ctx) =>
        call(ctx.broken.origin, "POST", "/v1/run/", {
          key: ctx.brokenKey,
          json: { skill_id: ALICE_SKILL },
          headers: { "idempotency-key": "contract-broken" },
        }),
      ).map((provocation) => ({
        ...provocation,
        name: `${provocation.name}, with an Idempotency-Key`,
      })),
    ],
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
        name: "the queued runs only (state_filter=queued)",
        send: (ctx) =>
          call(ctx.main.origin, "GET", "/v1/run/list?state_filter=queued", { key: ctx.alice }),
        check: (reply) => {
          const runs = reply.body as { state: unknown }[];
          expect(runs.length).toBeGreaterThan(0);
          expect(runs.every((run) => run.state === null)).toBe(true);
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

  getRunSummary: {
    "200": [
      {
        name: "the last 24 hours",
        send: (ctx) => call(ctx.main.origin, "GET", "/v1/run/summary", { key: ctx.alice }),
        check: (reply) => {
          const body = reply.body as { by_state: Record<string, number>; queue_depth: number };
          const counted = Object.values(body.by_state).reduce((sum, runs) => sum + runs, 0);
          expect(counted).toBeGreaterThan(1);
          expect(body.queue_depth).toBeGreaterThan(0);
        },
      },
      {
        name: "since a given time, its colons sent as they are",
        send: (ctx) => {
          const since = new Date(Date.now() - 7_200_000).toISOString();
          return call(ctx.main.origin, "GET", `/v1/run/summary?since=${since}`, { key: ctx.alice });
        },
        check: (reply) =>
          expect(Date.now() - Date.parse((reply.body as { since: string }).since)).toBeGreaterThan(
            7_100_000,
          ),
      },
      {
        name: "since a given time",
        send: (ctx) => {
          const since = new Date(Date.now() - 3_600_000).toISOString();
          return call(
            ctx.main.origin,
            "GET",
            `/v1/run/summary?since=${encodeURIComponent(since)}`,
            { key: ctx.alice },
          );
        },
        check: (reply) => {
          const since = Date.parse((reply.body as { since: string }).since);
          expect(Date.now() - since).toBeLessThan(3_700_000);
        },
      },
    ],
    "401": unauthorized((ctx, key) => call(ctx.main.origin, "GET", "/v1/run/summary", { key })),
    "422": [
      {
        name: "since that is not a date-time",
        send: (ctx) =>
          call(ctx.main.origin, "GET", "/v1/run/summary?since=yesterday", { key: ctx.alice }),
      },
      {
        name: "since more than 7 days back",
        send: (ctx) => {
          const since = new Date(Date.now() - 8 * 24 * 3_600_000).toISOString();
          return call(
            ctx.main.origin,
            "GET",
            `/v1/run/summary?since=${encodeURIComponent(since)}`,
            { key: ctx.alice },
          );
        },
        check: (reply) =>
          expect(reply.body).toEqual({
            detail: [
              {
                loc: ["query", "since"],
                msg: "Value error, since goes back more than 7 days",
                type: "value_error",
              },
            ],
          }),
      },
      {
        name: "since in the future",
        send: (ctx) => {
          const since = new Date(Date.now() + 3_600_000).toISOString();
          return call(
            ctx.main.origin,
            "GET",
            `/v1/run/summary?since=${encodeURIComponent(since)}`,
            { key: ctx.alice },
          );
        },
        check: (reply) =>
          expect(reply.body).toMatchObject({
            detail: [{ msg: "Value error, since is in the future" }],
          }),
      },
    ],
    "500": failing((ctx) =>
      call(ctx.broken.origin, "GET", "/v1/run/summary", { key: ctx.brokenKey }),
    ),
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

  pauseRun: {
    "200": [
      {
        name: "a paused run",
        send: async (ctx) =>
          call(ctx.main.origin, "POST", `/v1/run/${await runIn(ctx, "pause")}/pause`, {
            key: ctx.alice,
          }),
        check: (reply) => expect(reply.body).toBe("pause"),
      },
    ],
    "202": [
      {
        name: "a running run",
        send: async (ctx) =>
          call(ctx.main.origin, "POST", `/v1/run/${await runIn(ctx, "play")}/pause`, {
            key: ctx.alice,
          }),
        check: (reply) => expect(reply.body).toBe("play"),
      },
    ],
    "401": unauthorized(async (ctx, key) =>
      call(ctx.main.origin, "POST", `/v1/run/${await runIn(ctx, "play")}/pause`, { key }),
    ),
    "404": [
      {
        name: "an unknown run",
        send: (ctx) =>
          call(ctx.main.origin, "POST", "/v1/run/run_unknown/pause", { key: ctx.alice }),
      },
      {
        name: "another owner's run",
        send: (ctx) =>
          call(ctx.main.origin, "POST", `/v1/run/${ctx.bobRun}/pause`, { key: ctx.alice }),
      },
    ],
    "409": [
      {
        name: "a queued run",
        send: async (ctx) =>
          call(ctx.main.origin, "POST", `/v1/run/${await newRun(ctx)}/pause`, { key: ctx.alice }),
        check: (reply) =>
          expect(reply.body).toEqual({
            detail: "Run cannot be paused: it is queued, waiting for a worker",
          }),
      },
    ],
    "413": [
      {
        name: "a body over 1 MiB (a pause takes none, but any body is read)",
        send: async (ctx) =>
          call(ctx.main.origin, "POST", `/v1/run/${await runIn(ctx, "play")}/pause`, {
            key: ctx.alice,
            body: oversizedRunBody(ALICE_SKILL),
          }),
      },
    ],
    "422": [
      {
        name: "an id over 128 characters",
        send: (ctx) =>
          call(ctx.main.origin, "POST", `/v1/run/${TOO_LONG_ID}/pause`, { key: ctx.alice }),
      },
    ],
    "500": failing((ctx) =>
      call(ctx.broken.origin, "POST", "/v1/run/run_anything/pause", { key: ctx.brokenKey }),
    ),
  },

  resumeRun: {
    "200": [
      {
        name: "a paused run with an answer that fits",
        send: async (ctx) =>
          call(ctx.main.origin, "POST", `/v1/run/${await runIn(ctx, "pause")}/resume`, {
            key: ctx.alice,
            json: { input: "123456" },
          }),
        check: (reply) => expect(reply.body).toBe("play"),
      },
      {
        name: "a running run whose pause is pending, without a body",
        send: async (ctx) =>
          call(ctx.main.origin, "POST", `/v1/run/${await runIn(ctx, "play", true)}/resume`, {
            key: ctx.alice,
          }),
        check: (reply) => expect(reply.body).toBe("play"),
      },
    ],
    "401": unauthorized(async (ctx, key) =>
      call(ctx.main.origin, "POST", `/v1/run/${await runIn(ctx, "pause")}/resume`, {
        key,
        json: { input: "1" },
      }),
    ),
    "404": [
      {
        name: "an unknown run",
        send: (ctx) =>
          call(ctx.main.origin, "POST", "/v1/run/run_unknown/resume", {
            key: ctx.alice,
            json: { input: "1" },
          }),
      },
      {
        name: "another owner's run",
        send: (ctx) =>
          call(ctx.main.origin, "POST", `/v1/run/${ctx.bobRun}/resume`, { key: ctx.alice }),
      },
    ],
    "409": [
      {
        name: "a running run with no pause pending",
        send: async (ctx) =>
          call(ctx.main.origin, "POST", `/v1/run/${await runIn(ctx, "play")}/resume`, {
            key: ctx.alice,
          }),
        check: (reply) =>
          expect(reply.body).toEqual({ detail: "Run is not paused: it is running" }),
      },
    ],
    "413": [
      {
        name: "a body over 1 MiB",
        send: async (ctx) =>
          call(ctx.main.origin, "POST", `/v1/run/${await runIn(ctx, "pause")}/resume`, {
            key: ctx.alice,
            body: oversizedRunBody(ALICE_SKILL),
          }),
      },
    ],
    "422": [
      {
        name: "an answer its ask's schema refuses",
        send: async (ctx) =>
          call(ctx.main.origin, "POST", `/v1/run/${await runIn(ctx, "pause")}/resume`, {
            key: ctx.alice,
            json: { input: 123456 },
          }),
        check: (reply) =>
          expect(reply.body).toEqual({
            detail: [
              { loc: ["body", "input"], msg: "Value error, must be string", type: "value_error" },
            ],
          }),
      },
      {
        name: "a key beside input",
        send: async (ctx) =>
          call(ctx.main.origin, "POST", `/v1/run/${await runIn(ctx, "pause")}/resume`, {
            key: ctx.alice,
            json: { input: "1", answer: "1" },
          }),
      },
    ],
    "500": failing((ctx) =>
      call(ctx.broken.origin, "POST", "/v1/run/run_anything/resume", { key: ctx.brokenKey }),
    ),
  },

  rerunRun: rerunRows(ALICE_SKILL, { unauthorized, failing, queued: newRun }),

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

  listRunFiles: {
    "200": [
      {
        name: "a run with a file",
        send: (ctx) =>
          call(ctx.main.origin, "GET", `/v1/run/${ctx.fileRun}/files`, { key: ctx.alice }),
        check: (reply, ctx) =>
          expect(reply.body).toEqual([
            expect.objectContaining({
              name: FILE_NAME,
              bytes: FILE_BYTES.length,
              url: expect.stringMatching(
                new RegExp(
                  `^${ctx.main.origin}/v1/run/${ctx.fileRun}/files/report\\.csv\\?expires=\\d+&signature=[\\w-]{43}$`,
                ),
              ),
            }),
          ]),
      },
      {
        name: "a run without files",
        send: (ctx) =>
          call(ctx.main.origin, "GET", `/v1/run/${ctx.aliceRun}/files`, { key: ctx.alice }),
        check: (reply) => expect(reply.body).toEqual([]),
      },
    ],
    "401": unauthorized((ctx, key) =>
      call(ctx.main.origin, "GET", `/v1/run/${ctx.fileRun}/files`, { key }),
    ),
    "404": [
      {
        name: "an unknown run",
        send: (ctx) =>
          call(ctx.main.origin, "GET", "/v1/run/run_unknown/files", { key: ctx.alice }),
      },
      {
        name: "another owner's run",
        send: (ctx) =>
          call(ctx.main.origin, "GET", `/v1/run/${ctx.bobFileRun}/files`, { key: ctx.alice }),
      },
    ],
    "422": [
      {
        name: "an id over 128 characters",
        send: (ctx) =>
          call(ctx.main.origin, "GET", `/v1/run/${TOO_LONG_ID}/files`, { key: ctx.alice }),
      },
    ],
    "500": failing((ctx) =>
      call(ctx.broken.origin, "GET", "/v1/run/run_anything/files", { key: ctx.brokenKey }),
    ),
  },

  getRunFile: {
    "200": [
      {
        name: "a signed address, without a key",
        send: (ctx) => fetchFile(ctx),
        check: (reply) => {
          expect(reply.bytes).toEqual(FILE_BYTES);
          expect(reply.headers.get("content-type")).toBe("text/csv");
          expect(reply.headers.get("content-disposition")).toBe(
            `attachment; filename="${FILE_NAME}"`,
          );
          expect(reply.headers.get("x-content-type-options")).toBe("nosniff");
        },
      },
    ],
    "206": [
      {
        name: "Range: bytes=0-9",
        send: (ctx) => fetchFile(ctx, { range: "bytes=0-9" }),
        check: (reply) => {
          expect(reply.headers.get("content-range")).toBe(`bytes 0-9/${FILE_BYTES.length}`);
          expect(reply.bytes).toEqual(FILE_BYTES.slice(0, 10));
        },
      },
    ],
    "304": [
      {
        name: "If-None-Match with the file's ETag",
        send: async (ctx) => {
          const etag = (await fetchFile(ctx)).headers.get("etag");
          expect(etag).toBeTruthy();
          return fetchFile(ctx, { "if-none-match": etag as string, "cache-control": "max-age=0" });
        },
      },
    ],
    "403": [
      {
        name: "a tampered signature",
        send: async (ctx) => {
          const url = await fileUrl(ctx);
          const signature = new URL(url).searchParams.get("signature") as string;
          return call(ctx.main.origin, "GET", withQuery(url, { signature: tampered(signature) }));
        },
        check: (reply) => expect(reply.body).toEqual({ detail: "Invalid file signature" }),
      },
      {
        name: "the video's signature on a file",
        send: async (ctx) => {
          const video = new URL(await signedUrl(ctx, ctx.videoRun)).search;
          return call(ctx.main.origin, "GET", `/v1/run/${ctx.videoRun}/files/${FILE_NAME}${video}`);
        },
        check: (reply) => expect(reply.body).toEqual({ detail: "Invalid file signature" }),
      },
    ],
    "404": [
      {
        name: "a genuine address of a file the run does not have",
        send: (ctx) => call(ctx.main.origin, "GET", ctx.main.fileUrlFor(ctx.fileRun, "other.csv")),
        check: (reply) => expect(reply.body).toEqual({ detail: "Run file not found" }),
      },
      {
        name: "a name no run file can have",
        send: async (ctx) => {
          const search = new URL(await fileUrl(ctx)).search;
          return call(
            ctx.main.origin,
            "GET",
            `/v1/run/${ctx.fileRun}/files/..%2Freport.csv${search}`,
          );
        },
        check: (reply) => expect(reply.body).toEqual({ detail: "Run file not found" }),
      },
    ],
    "412": [
      {
        name: "If-Match with another ETag",
        send: (ctx) => fetchFile(ctx, { "if-match": '"not-this-file"' }),
      },
    ],
    "416": [
      {
        name: "a range past the end",
        send: (ctx) => fetchFile(ctx, { range: `bytes=${FILE_BYTES.length}-` }),
        check: (reply) =>
          expect(reply.headers.get("content-range")).toBe(`bytes */${FILE_BYTES.length}`),
      },
    ],
    "422": [
      {
        name: "no signature",
        send: async (ctx) =>
          call(ctx.main.origin, "GET", withQuery(await fileUrl(ctx), { signature: undefined })),
      },
    ],
    "500": failing((ctx) =>
      call(ctx.broken.origin, "GET", ctx.broken.fileUrlFor("run_anything", FILE_NAME)),
    ),
  },

  uploadFile: {
    "200": [
      {
        name: "one file in the field file",
        send: (ctx) => uploadFile(ctx.main.origin, ctx.alice, FILE_BYTES),
        check: (reply) =>
          expect(reply.body).toMatchObject({ name: "upload.csv", bytes: FILE_BYTES.length }),
      },
    ],
    "401": unauthorized((ctx, key) => uploadFile(ctx.main.origin, key, FILE_BYTES)),
    "413": [
      {
        name: "a file one byte over the default 25 MiB",
        send: (ctx) => uploadFile(ctx.main.origin, ctx.alice, new Uint8Array(25 * 1024 * 1024 + 1)),
      },
    ],
    "422": [
      {
        name: "a file in another field",
        send: (ctx) => uploadFile(ctx.main.origin, ctx.alice, FILE_BYTES, "document"),
      },
      {
        name: "a JSON body",
        send: (ctx) =>
          call(ctx.main.origin, "POST", "/v1/file", { key: ctx.alice, json: { file: "x" } }),
      },
    ],
    "500": failing((ctx) => uploadFile(ctx.broken.origin, ctx.brokenKey, FILE_BYTES)),
  },

  deleteFile: {
    "204": [
      {
        name: "an upload of the caller's that no run names",
        send: async (ctx) => {
          const file = (await uploadFile(ctx.main.origin, ctx.alice, FILE_BYTES)).body as {
            id: string;
          };
          return call(ctx.main.origin, "DELETE", `/v1/file/${file.id}`, { key: ctx.alice });
        },
      },
    ],
    "401": unauthorized((ctx, key) =>
      call(ctx.main.origin, "DELETE", "/v1/file/file_0190a9f4-6c1b-7d3a-9b1e-2f4c5d6e7f80", {
        key,
      }),
    ),
    "404": [
      {
        name: "an unknown id",
        send: (ctx) =>
          call(ctx.main.origin, "DELETE", "/v1/file/file_0190a9f4-6c1b-7d3a-9b1e-2f4c5d6e7f80", {
            key: ctx.alice,
          }),
      },
      {
        name: "another owner's upload",
        send: async (ctx) => {
          const file = (await uploadFile(ctx.main.origin, ctx.bob, FILE_BYTES)).body as {
            id: string;
          };
          return call(ctx.main.origin, "DELETE", `/v1/file/${file.id}`, { key: ctx.alice });
        },
      },
    ],
    "409": [
      {
        name: "an upload a queued run names",
        send: async (ctx) => {
          // An owner of its own, so that alice's lists keep their expected contents.
          const carol = await ctx.main.keyFor("carol");
          await ctx.main.importSkills("carol", [
            skillRecord("skill_contract_file", "With a file", [
              { id: "in_report", json_key: "report", data_type: "file", required: true },
            ]),
          ]);
          const file = (await uploadFile(ctx.main.origin, carol, FILE_BYTES)).body as {
            id: string;
          };
          const run = await call(ctx.main.origin, "POST", "/v1/run/", {
            key: carol,
            json: { skill_id: "skill_contract_file", inputs: { report: file.id } },
          });
          expect(run.status, run.text).toBe(200);
          const reply = await call(ctx.main.origin, "DELETE", `/v1/file/${file.id}`, {
            key: carol,
          });
          expect(reply.body).toEqual({
            detail: `File is used by runs that have not ended: ${(run.body as { id: string }).id}`,
          });
          return reply;
        },
      },
    ],
    "413": [
      {
        name: "a body over 1 MiB (a delete takes none, but any body is read)",
        send: (ctx) =>
          call(ctx.main.origin, "DELETE", "/v1/file/file_0190a9f4-6c1b-7d3a-9b1e-2f4c5d6e7f80", {
            key: ctx.alice,
            body: oversizedRunBody(ALICE_SKILL),
          }),
      },
    ],
    "422": [
      {
        name: "an id over 128 characters",
        send: (ctx) =>
          call(ctx.main.origin, "DELETE", `/v1/file/${TOO_LONG_ID}`, { key: ctx.alice }),
      },
    ],
    "500": failing((ctx) =>
      call(ctx.broken.origin, "DELETE", "/v1/file/file_0190a9f4-6c1b-7d3a-9b1e-2f4c5d6e7f80", {
        key: ctx.brokenKey,
      }),
    ),
  },

  listSkills: {
    "200": [
      {
        name: "the caller's skills",
        send: (ctx) => call(ctx.main.origin, "GET", "/v1/skill/list", { key: ctx.alice }),
        // Alice's two (the contract's and the agent rows'), never Bob's.
        check: (reply) =>
          expect((reply.body as { id: string }[]).map((skill) => skill.id).sort()).toEqual(
            [AGENT_SKILL, ALICE_SKILL].sort(),
          ),
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
        check: (reply) => {
          expect(reply.body).toMatchObject({
            x_definition: { steps: [] },
            x_version: `hash-${ALICE_SKILL}`,
          });
        },
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

  getSkillYaml: {
    "200": [
      {
        name: "the caller's skill, stored without its text: written out",
        send: (ctx) =>
          call(ctx.main.origin, "GET", `/v1/skill/${ALICE_SKILL}/yaml`, { key: ctx.alice }),
        check: (reply) => {
          expect(reply.headers.get("content-type")).toBe("application/yaml; charset=utf-8");
          expect(reply.text).toBe("steps: []\n");
        },
      },
      {
        name: "a skill PUT as YAML: its text as sent",
        send: async (ctx) => {
          await putYaml(ctx, "skill_contract_text", "Texted");
          return call(ctx.main.origin, "GET", "/v1/skill/skill_contract_text/yaml", {
            key: ctx.alice,
          });
        },
        check: (reply) => expect(reply.text).toBe(skillYaml("skill_contract_text", "Texted")),
      },
    ],
    "401": unauthorized((ctx, key) =>
      call(ctx.main.origin, "GET", `/v1/skill/${ALICE_SKILL}/yaml`, { key }),
    ),
    "404": [
      {
        name: "an unknown skill",
        send: (ctx) =>
          call(ctx.main.origin, "GET", "/v1/skill/skill_unknown/yaml", { key: ctx.alice }),
      },
      {
        name: "another owner's skill",
        send: (ctx) =>
          call(ctx.main.origin, "GET", `/v1/skill/${BOB_SKILL}/yaml`, { key: ctx.alice }),
      },
    ],
    "422": [
      {
        name: "an id over 128 characters",
        send: (ctx) =>
          call(ctx.main.origin, "GET", `/v1/skill/${TOO_LONG_ID}/yaml`, { key: ctx.alice }),
      },
    ],
    "500": failing((ctx) =>
      call(ctx.broken.origin, "GET", `/v1/skill/${ALICE_SKILL}/yaml`, { key: ctx.brokenKey }),
    ),
  },

  putSkill: {
    "200": [
      {
        name: "a skill of the caller's, replaced (YAML)",
        send: async (ctx) => {
          await putYaml(ctx, "skill_contract_put", "First");
          return putYaml(ctx, "skill_contract_put", "Second");
        },
        check: (reply) => expect(reply.body).toMatchObject({ name: "Second" }),
      },
    ],
    "201": [
      {
        name: "a new skill (JSON)",
        send: (ctx) =>
          call(ctx.main.origin, "PUT", "/v1/skill/skill_contract_new", {
            key: ctx.alice,
            json: { id: "skill_contract_new", name: "New", steps: [{ log: "hi" }] },
          }),
        check: (reply) =>
          expect(reply.body).toMatchObject({ id: "skill_contract_new", owner: "alice" }),
      },
    ],
    "401": unauthorized((ctx, key) =>
      call(ctx.main.origin, "PUT", "/v1/skill/skill_contract_put", {
        key,
        body: skillYaml("skill_contract_put", "Any"),
        headers: { "content-type": "application/yaml" },
      }),
    ),
    "404": [
      {
        name: "the address of the skill list",
        send: (ctx) =>
          call(ctx.main.origin, "PUT", "/v1/skill/list", {
            key: ctx.alice,
            body: skillYaml("list", "List"),
            headers: { "content-type": "application/yaml" },
          }),
      },
    ],
    "413": [
      {
        name: "a body over 1 MiB",
        send: (ctx) =>
          call(ctx.main.origin, "PUT", "/v1/skill/skill_contract_put", {
            key: ctx.alice,
            body: `${skillYaml("skill_contract_put", "Big")}# ${"x".repeat(1024 * 1024)}\n`,
            headers: { "content-type": "application/yaml" },
          }),
      },
    ],
    "422": [
      {
        name: "a definition with a problem, placed at its line",
        send: (ctx) =>
          call(ctx.main.origin, "PUT", "/v1/skill/skill_contract_bad", {
            key: ctx.alice,
            body: "id: skill_contract_bad\nname: Bad\nsteps:\n  - clik: { selector: a }\n",
            headers: { "content-type": "application/yaml" },
          }),
        check: (reply) => {
          const [issue] = (reply.body as { detail: { loc: unknown[]; msg: string }[] }).detail;
          expect(issue?.loc).toEqual(["body", "steps", 0, "clik"]);
          expect(issue?.msg).toMatch(/^Value error, line 4, column 5: unknown step kind "clik"/);
        },
      },
      {
        name: "an id over 128 characters",
        send: (ctx) =>
          call(ctx.main.origin, "PUT", `/v1/skill/${TOO_LONG_ID}`, {
            key: ctx.alice,
            json: { id: "x", name: "x", steps: [{ log: "x" }] },
          }),
      },
    ],
    "500": failing((ctx) =>
      call(ctx.broken.origin, "PUT", "/v1/skill/skill_contract_put", {
        key: ctx.brokenKey,
        body: skillYaml("skill_contract_put", "Any"),
        headers: { "content-type": "application/yaml" },
      }),
    ),
  },

  deleteSkill: {
    "204": [
      {
        name: "a skill of the caller's",
        send: async (ctx) => {
          await putYaml(ctx, "skill_contract_gone", "Gone");
          return call(ctx.main.origin, "DELETE", "/v1/skill/skill_contract_gone", {
            key: ctx.alice,
          });
        },
      },
    ],
    "401": unauthorized((ctx, key) =>
      call(ctx.main.origin, "DELETE", `/v1/skill/${ALICE_SKILL}`, { key }),
    ),
    "404": [
      {
        name: "an unknown skill",
        send: (ctx) =>
          call(ctx.main.origin, "DELETE", "/v1/skill/skill_unknown", { key: ctx.alice }),
      },
      {
        name: "another owner's skill",
        send: (ctx) =>
          call(ctx.main.origin, "DELETE", `/v1/skill/${BOB_SKILL}`, { key: ctx.alice }),
      },
    ],
    "409": [
      {
        name: "a skill another of the caller's skills calls",
        send: async (ctx) => {
          await putYaml(ctx, "skill_contract_callee", "Callee");
          await call(ctx.main.origin, "PUT", "/v1/skill/skill_contract_caller", {
            key: ctx.alice,
            json: {
              id: "skill_contract_caller",
              name: "Caller",
              steps: [{ call: { skill: "skill_contract_callee" } }],
            },
          });
          return call(ctx.main.origin, "DELETE", "/v1/skill/skill_contract_callee", {
            key: ctx.alice,
          });
        },
      },
    ],
    "413": [
      {
        name: "a body over 1 MiB (a delete takes none, but any body is read)",
        send: (ctx) =>
          call(ctx.main.origin, "DELETE", `/v1/skill/${ALICE_SKILL}`, {
            key: ctx.alice,
            body: oversizedRunBody(ALICE_SKILL),
          }),
      },
    ],
    "422": [
      {
        name: "an id over 128 characters",
        send: (ctx) =>
          call(ctx.main.origin, "DELETE", `/v1/skill/${TOO_LONG_ID}`, { key: ctx.alice }),
      },
    ],
    "500": failing((ctx) =>
      call(ctx.broken.origin, "DELETE", `/v1/skill/${ALICE_SKILL}`, { key: ctx.brokenKey }),
    ),
  },

  validateSkill: {
    "200": [
      {
        name: "a valid definition, stored nowhere",
        send: (ctx) =>
          call(ctx.main.origin, "POST", "/v1/skill/validate", {
            key: ctx.alice,
            body: skillYaml("skill_contract_checked", "Checked"),
            headers: { "content-type": "application/yaml" },
          }),
        check: async (reply) => {
          expect(reply.body).toMatchObject({ id: "skill_contract_checked", name: "Checked" });
        },
      },
    ],
    "401": unauthorized((ctx, key) =>
      call(ctx.main.origin, "POST", "/v1/skill/validate", {
        key,
        json: { id: "x", name: "x", steps: [{ log: "x" }] },
      }),
    ),
    "413": [
      {
        name: "a body over 1 MiB",
        send: (ctx) =>
          call(ctx.main.origin, "POST", "/v1/skill/validate", {
            key: ctx.alice,
            body: `${skillYaml("skill_contract_put", "Big")}# ${"x".repeat(1024 * 1024)}\n`,
            headers: { "content-type": "application/yaml" },
          }),
      },
    ],
    "422": [
      {
        name: "a definition reading an input it does not declare",
        send: (ctx) =>
          call(ctx.main.origin, "POST", "/v1/skill/validate", {
            key: ctx.alice,
            json: { id: "skill_x", name: "X", steps: [{ log: "{{ inputs.usernme }}" }] },
          }),
      },
      {
        name: "a body that is not a definition at all",
        send: (ctx) =>
          call(ctx.main.origin, "POST", "/v1/skill/validate", { key: ctx.alice, json: [1, 2] }),
      },
    ],
    "500": failing((ctx) =>
      call(ctx.broken.origin, "POST", "/v1/skill/validate", {
        key: ctx.brokenKey,
        json: { id: "x", name: "x", steps: [{ log: "x" }] },
      }),
    ),
  },

  putSecret: {
    "200": [
      {
        name: "a new secret of the caller's",
        send: (ctx) =>
          call(ctx.main.origin, "PUT", "/v1/secret/contract_token", {
            key: ctx.alice,
            json: { value: "contract-secret-value" },
          }),
        check: (reply) => {
          expect(reply.body).toMatchObject({ name: "contract_token" });
          expect(reply.text).not.toContain("contract-secret-value");
        },
      },
    ],
    "401": unauthorized((ctx, key) =>
      call(ctx.main.origin, "PUT", "/v1/secret/contract_token", { key, json: { value: "x" } }),
    ),
    "404": [
      {
        name: "the address of the list",
        send: (ctx) =>
          call(ctx.main.origin, "PUT", "/v1/secret/list", { key: ctx.alice, json: { value: "x" } }),
      },
      {
        name: "a name whose percent-encoding does not decode",
        send: (ctx) =>
          call(ctx.main.origin, "PUT", "/v1/secret/%zz", { key: ctx.alice, json: { value: "x" } }),
      },
    ],
    "413": [
      {
        name: "a body over 1 MiB",
        send: (ctx) =>
          call(ctx.main.origin, "PUT", "/v1/secret/contract_token", {
            key: ctx.alice,
            json: { value: "x".repeat(1024 * 1024) },
          }),
      },
    ],
    "422": [
      {
        name: "a name that is not an identifier",
        send: (ctx) =>
          call(ctx.main.origin, "PUT", "/v1/secret/not-a-name", {
            key: ctx.alice,
            json: { value: "x" },
          }),
      },
      {
        name: "an empty value",
        send: (ctx) =>
          call(ctx.main.origin, "PUT", "/v1/secret/contract_token", {
            key: ctx.alice,
            json: { value: "" },
          }),
      },
    ],
    "500": failing((ctx) =>
      call(ctx.broken.origin, "PUT", "/v1/secret/contract_token", {
        key: ctx.brokenKey,
        json: { value: "x" },
      }),
    ),
  },

  deleteSecret: {
    "204": [
      {
        name: "a secret of the caller's",
        send: async (ctx) => {
          await ctx.main.repos.secrets.put("alice", "to_delete", "x");
          return call(ctx.main.origin, "DELETE", "/v1/secret/to_delete", { key: ctx.alice });
        },
      },
    ],
    "401": unauthorized((ctx, key) =>
      call(ctx.main.origin, "DELETE", "/v1/secret/contract_token", { key }),
    ),
    "404": [
      {
        name: "an unknown secret",
        send: (ctx) => call(ctx.main.origin, "DELETE", "/v1/secret/never_set", { key: ctx.alice }),
      },
      {
        name: "another owner's secret",
        send: async (ctx) => {
          await ctx.main.repos.secrets.put("bob", "bobs_secret", "x");
          return call(ctx.main.origin, "DELETE", "/v1/secret/bobs_secret", { key: ctx.alice });
        },
      },
      {
        name: "the address of the list",
        send: (ctx) => call(ctx.main.origin, "DELETE", "/v1/secret/list", { key: ctx.alice }),
      },
    ],
    "413": [
      {
        name: "a body over 1 MiB (a delete takes none, but any body is read)",
        send: (ctx) =>
          call(ctx.main.origin, "DELETE", "/v1/secret/contract_token", {
            key: ctx.alice,
            body: oversizedRunBody(ALICE_SKILL),
          }),
      },
    ],
    "422": [
      {
        name: "a name over 128 characters",
        send: (ctx) =>
          call(ctx.main.origin, "DELETE", `/v1/secret/${TOO_LONG_ID}`, { key: ctx.alice }),
      },
    ],
    "500": failing((ctx) =>
      call(ctx.broken.origin, "DELETE", "/v1/secret/contract_token", { key: ctx.brokenKey }),
    ),
  },

  listSecrets: {
    "200": [
      {
        name: "the caller's secrets, without values",
        send: async (ctx) => {
          await ctx.main.repos.secrets.put("alice", "listed", "listed-secret-value");
          return call(ctx.main.origin, "GET", "/v1/secret/list", { key: ctx.alice });
        },
        check: (reply) => {
          expect((reply.body as { name: string }[]).map((s) => s.name)).toContain("listed");
          expect(reply.text).not.toContain("listed-secret-value");
        },
      },
    ],
    "401": unauthorized((ctx, key) => call(ctx.main.origin, "GET", "/v1/secret/list", { key })),
    "500": failing((ctx) =>
      call(ctx.broken.origin, "GET", "/v1/secret/list", { key: ctx.brokenKey }),
    ),
  },

  streamRuns: {
    "200": [
      {
        name: "the caller's run changes since the first (one read, then closed by the client)",
        send: (ctx) =>
          callStream(ctx.main.origin, "/v1/run/stream", {
            key: ctx.alice,
            headers: { "last-event-id": "0" },
            enough: "\n\n",
          }),
        check: (reply) => {
          expect(reply.headers.get("content-type")).toMatch(/^text\/event-stream/);
          expect(reply.text).toMatch(/^id: \d+\nevent: run\ndata: \{"id":"run_/);
          expect(reply.text).not.toContain('"owner":"bob"');
        },
      },
    ],
    "401": unauthorized((ctx, key) => call(ctx.main.origin, "GET", "/v1/run/stream", { key })),
    "422": [
      {
        name: "a Last-Event-ID that is not a change id",
        send: (ctx) =>
          call(ctx.main.origin, "GET", "/v1/run/stream", {
            key: ctx.alice,
            headers: { "last-event-id": "x" },
          }),
      },
    ],
    "429": [
      {
        name: "a 51st stream of one owner",
        send: (ctx) =>
          withStreamsFull(ctx, (key) => call(ctx.main.origin, "GET", "/v1/run/stream", { key })),
        check: (reply) => expect(reply.headers.get("retry-after")).toBe("5"),
      },
    ],
    "500": failing((ctx) =>
      call(ctx.broken.origin, "GET", "/v1/run/stream", {
        key: ctx.brokenKey,
        headers: { "last-event-id": "0" },
      }),
    ),
  },

  streamRunEvents: {
    "200": [
      {
        name: "a run whose log holds its ending: all of it, then the stream closes",
        send: (ctx) =>
          call(ctx.main.origin, "GET", `/v1/run/${ctx.aliceRun}/events/stream`, {
            key: ctx.alice,
          }),
        check: (reply) => {
          expect(reply.headers.get("content-type")).toMatch(/^text\/event-stream/);
          const types = [...reply.text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
          expect(types).toEqual(SAMPLE_EVENTS.map((event) => event.type));
        },
      },
    ],
    "204": [
      {
        name: "a run cancelled while queued: no event will ever come",
        send: async (ctx) => {
          const id = await newRun(ctx);
          await ctx.main.repos.runs.cancel("alice", id);
          return call(ctx.main.origin, "GET", `/v1/run/${id}/events/stream`, { key: ctx.alice });
        },
      },
    ],
    "401": unauthorized((ctx, key) =>
      call(ctx.main.origin, "GET", `/v1/run/${ctx.aliceRun}/events/stream`, { key }),
    ),
    "404": [
      {
        name: "another owner's run",
        send: (ctx) =>
          call(ctx.main.origin, "GET", `/v1/run/${ctx.bobRun}/events/stream`, { key: ctx.alice }),
      },
    ],
    "422": [
      {
        name: "a Last-Event-ID that is not an event id",
        send: (ctx) =>
          call(ctx.main.origin, "GET", `/v1/run/${ctx.aliceRun}/events/stream`, {
            key: ctx.alice,
            headers: { "last-event-id": "-1" },
          }),
      },
    ],
    "429": [
      {
        name: "a 51st stream of one owner",
        send: (ctx) =>
          withStreamsFull(ctx, (key) =>
            call(ctx.main.origin, "GET", `/v1/run/${ctx.aliceRun}/events/stream`, { key }),
          ),
        check: (reply) => expect(reply.headers.get("retry-after")).toBe("5"),
      },
    ],
    "500": failing((ctx) =>
      call(ctx.broken.origin, "GET", `/v1/run/${ctx.aliceRun}/events/stream`, {
        key: ctx.brokenKey,
      }),
    ),
  },

  createWebhook: {
    "201": [
      {
        name: "an address the rules allow, all events by default, the secret shown",
        send: (ctx) =>
          call(ctx.main.origin, "POST", "/v1/webhook", {
            key: ctx.alice,
            json: { url: NOWHERE },
          }),
        check: (reply) => {
          expect(reply.body).toMatchObject({
            url: NOWHERE,
            secret: expect.stringMatching(/^whsec_/),
          });
          expect((reply.body as { events: string[] }).events).toHaveLength(6);
        },
      },
    ],
    "401": unauthorized((ctx, key) =>
      call(ctx.main.origin, "POST", "/v1/webhook", { key, json: { url: NOWHERE } }),
    ),
    "413": [
      {
        name: "a body over 1 MiB",
        send: (ctx) =>
          call(ctx.main.origin, "POST", "/v1/webhook", {
            key: ctx.alice,
            json: { url: `${NOWHERE}?${"x".repeat(1024 * 1024)}` },
          }),
      },
    ],
    "422": [
      {
        name: "an address that is not http(s)",
        send: (ctx) =>
          call(ctx.main.origin, "POST", "/v1/webhook", {
            key: ctx.alice,
            json: { url: "ftp://127.0.0.1/hook" },
          }),
        check: (reply) => {
          expect(reply.body).toEqual({
            detail: [
              {
                loc: ["body", "url"],
                msg: "Value error, ftp: is not http or https",
                type: "value_error",
              },
            ],
          });
        },
      },
      {
        name: "an unknown event",
        send: (ctx) =>
          call(ctx.main.origin, "POST", "/v1/webhook", {
            key: ctx.alice,
            json: { url: NOWHERE, events: ["run.started"] },
          }),
      },
    ],
    "500": failing((ctx) =>
      call(ctx.broken.origin, "POST", "/v1/webhook", {
        key: ctx.brokenKey,
        json: { url: NOWHERE },
      }),
    ),
  },

  listWebhooks: {
    "200": [
      {
        name: "the caller's endpoints, without secrets",
        send: async (ctx) => {
          await newWebhook(ctx);
          return call(ctx.main.origin, "GET", "/v1/webhook/list", { key: ctx.alice });
        },
        check: (reply) => {
          expect((reply.body as unknown[]).length).toBeGreaterThan(0);
          expect(reply.text).not.toContain("whsec_");
        },
      },
    ],
    "401": unauthorized((ctx, key) => call(ctx.main.origin, "GET", "/v1/webhook/list", { key })),
    "500": failing((ctx) =>
      call(ctx.broken.origin, "GET", "/v1/webhook/list", { key: ctx.brokenKey }),
    ),
  },

  deleteWebhook: {
    "204": [
      {
        name: "an endpoint of the caller's",
        send: async (ctx) =>
          call(ctx.main.origin, "DELETE", `/v1/webhook/${await newWebhook(ctx)}`, {
            key: ctx.alice,
          }),
      },
    ],
    "401": unauthorized((ctx, key) =>
      call(ctx.main.origin, "DELETE", `/v1/webhook/${UNKNOWN_WEBHOOK}`, { key }),
    ),
    "404": [
      {
        name: "an unknown endpoint",
        send: (ctx) =>
          call(ctx.main.origin, "DELETE", `/v1/webhook/${UNKNOWN_WEBHOOK}`, { key: ctx.alice }),
      },
      {
        name: "another owner's endpoint",
        send: async (ctx) =>
          call(ctx.main.origin, "DELETE", `/v1/webhook/${await newWebhook(ctx, "bob")}`, {
            key: ctx.alice,
          }),
      },
    ],
    "413": [
      {
        name: "a body over 1 MiB (a delete takes none, but any body is read)",
        send: (ctx) =>
          call(ctx.main.origin, "DELETE", `/v1/webhook/${UNKNOWN_WEBHOOK}`, {
            key: ctx.alice,
            body: oversizedRunBody(ALICE_SKILL),
          }),
      },
    ],
    "422": [
      {
        name: "an id over 128 characters",
        send: (ctx) =>
          call(ctx.main.origin, "DELETE", `/v1/webhook/${TOO_LONG_ID}`, { key: ctx.alice }),
      },
    ],
    "500": failing((ctx) =>
      call(ctx.broken.origin, "DELETE", `/v1/webhook/${UNKNOWN_WEBHOOK}`, { key: ctx.brokenKey }),
    ),
  },

  listWebhookDeliveries: {
    "200": [
      {
        name: "an endpoint's deliveries with their attempts",
        send: async (ctx) => {
          const { webhookId } = await newDelivery(ctx);
          return call(ctx.main.origin, "GET", `/v1/webhook/${webhookId}/deliveries`, {
            key: ctx.alice,
          });
        },
        check: (reply) => {
          expect(reply.body).toMatchObject([
            { event: "run.finished", attempts: [{ status: 500, response: "down" }] },
          ]);
        },
      },
    ],
    "401": unauthorized((ctx, key) =>
      call(ctx.main.origin, "GET", `/v1/webhook/${UNKNOWN_WEBHOOK}/deliveries`, { key }),
    ),
    "404": [
      {
        name: "an unknown endpoint",
        send: (ctx) =>
          call(ctx.main.origin, "GET", `/v1/webhook/${UNKNOWN_WEBHOOK}/deliveries`, {
            key: ctx.alice,
          }),
      },
    ],
    "422": [
      {
        name: "a limit over 100",
        send: (ctx) =>
          call(ctx.main.origin, "GET", `/v1/webhook/${UNKNOWN_WEBHOOK}/deliveries?limit=101`, {
            key: ctx.alice,
          }),
      },
    ],
    "500": failing((ctx) =>
      call(ctx.broken.origin, "GET", `/v1/webhook/${UNKNOWN_WEBHOOK}/deliveries`, {
        key: ctx.brokenKey,
      }),
    ),
  },

  redeliverWebhook: {
    "202": [
      {
        name: "a delivery of the caller's endpoint",
        send: async (ctx) => {
          const { webhookId, deliveryId } = await newDelivery(ctx);
          return call(
            ctx.main.origin,
            "POST",
            `/v1/webhook/${webhookId}/deliveries/${deliveryId}/redeliver`,
            { key: ctx.alice },
          );
        },
        check: (reply) => {
          expect(reply.body).toMatchObject({ state: "pending", attempts: [{ status: 500 }] });
        },
      },
    ],
    "401": unauthorized((ctx, key) =>
      call(ctx.main.origin, "POST", `/v1/webhook/${UNKNOWN_WEBHOOK}/deliveries/msg_x/redeliver`, {
        key,
      }),
    ),
    "404": [
      {
        name: "an unknown endpoint",
        send: (ctx) =>
          call(
            ctx.main.origin,
            "POST",
            `/v1/webhook/${UNKNOWN_WEBHOOK}/deliveries/msg_x/redeliver`,
            { key: ctx.alice },
          ),
      },
      {
        name: "an unknown delivery of the caller's endpoint",
        send: async (ctx) =>
          call(
            ctx.main.origin,
            "POST",
            `/v1/webhook/${await newWebhook(ctx)}/deliveries/msg_x/redeliver`,
            { key: ctx.alice },
          ),
        check: (reply) => expect(reply.body).toEqual({ detail: "Delivery not found" }),
      },
    ],
    "409": [
      {
        name: "an endpoint disabled by a 410",
        send: async (ctx) => {
          const { webhookId, deliveryId } = await newDelivery(ctx);
          await ctx.main.db.prisma.webhook.update({
            where: { id: webhookId },
            data: { disabledAt: new Date(), disabledReason: "the endpoint answered 410 Gone" },
          });
          return call(
            ctx.main.origin,
            "POST",
            `/v1/webhook/${webhookId}/deliveries/${deliveryId}/redeliver`,
            { key: ctx.alice },
          );
        },
      },
    ],
    "413": [
      {
        name: "a body over 1 MiB (a redelivery takes none, but any body is read)",
        send: (ctx) =>
          call(
            ctx.main.origin,
            "POST",
            `/v1/webhook/${UNKNOWN_WEBHOOK}/deliveries/msg_x/redeliver`,
            { key: ctx.alice, body: oversizedRunBody(ALICE_SKILL) },
          ),
      },
    ],
    "422": [
      {
        name: "a delivery id over 128 characters",
        send: (ctx) =>
          call(
            ctx.main.origin,
            "POST",
            `/v1/webhook/${UNKNOWN_WEBHOOK}/deliveries/${TOO_LONG_ID}/redeliver`,
            { key: ctx.alice },
          ),
      },
    ],
    "500": failing((ctx) =>
      call(ctx.broken.origin, "POST", `/v1/webhook/${UNKNOWN_WEBHOOK}/deliveries/msg_x/redeliver`, {
        key: ctx.brokenKey,
      }),
    ),
  },
};

Object.assign(table, profileRows({ unauthorized, failing }));
Object.assign(table, liveRows({ unauthorized, failing, newRun }));
Object.assign(table, metricsRows());
Object.assign(table, agentRows({ unauthorized, failing }));
Object.assign(table, scheduleRows(ALICE_SKILL, BOB_SKILL, { unauthorized, failing }));
addScopeAndKeyRows(table, { unauthorized, failing });
