import { expect } from "vitest";
import { ADMIN, SCOPES, type Scope } from "../../src/domain/scopes.js";
import type { Ctx, Provocation, Table } from "./contract-table.js";
import { call, oversizedRunBody, type Reply, TOO_LONG_ID } from "./http.js";

/**
 * The contract table's rows for scopes, rate limits and the key operations: a 403 for every
 * operation a scope guards, a 429 for every operation with a key, and every status of createKey,
 * listKeys and deleteKey. contract-table.ts adds them to its table.
 */

type Send = (ctx: Ctx, key: string | undefined) => Promise<Reply>;

/** The scope each operation with a key needs (openapi.yaml), and a request to it. */
const GUARDED: Record<string, [Scope, string, (ctx: Ctx) => string]> = {
  startRun: ["runs:write", "POST", () => "/v1/run/"],
  listRuns: ["runs:read", "GET", () => "/v1/run/list"],
  getRunSummary: ["runs:read", "GET", () => "/v1/run/summary"],
  streamRuns: ["runs:read", "GET", () => "/v1/run/stream"],
  getRun: ["runs:read", "GET", (ctx) => `/v1/run/${ctx.aliceRun}`],
  cancelRun: ["runs:write", "POST", (ctx) => `/v1/run/${ctx.aliceRun}/cancel`],
  pauseRun: ["runs:write", "POST", (ctx) => `/v1/run/${ctx.aliceRun}/pause`],
  resumeRun: ["runs:write", "POST", (ctx) => `/v1/run/${ctx.aliceRun}/resume`],
  rerunRun: ["runs:write", "POST", (ctx) => `/v1/run/${ctx.aliceRun}/rerun`],
  listRunEvents: ["runs:read", "GET", (ctx) => `/v1/run/${ctx.aliceRun}/events`],
  streamRunEvents: ["runs:read", "GET", (ctx) => `/v1/run/${ctx.aliceRun}/events/stream`],
  getRunVideoUrl: ["runs:read", "GET", (ctx) => `/v1/run/${ctx.videoRun}/video_url`],
  getRunLiveUrl: ["runs:read", "GET", (ctx) => `/v1/run/${ctx.aliceRun}/live_url`],
  listRunFiles: ["runs:read", "GET", (ctx) => `/v1/run/${ctx.fileRun}/files`],
  uploadFile: ["runs:write", "POST", () => "/v1/file"],
  deleteFile: ["runs:write", "DELETE", () => "/v1/file/file_x"],
  listSkills: ["runs:read", "GET", () => "/v1/skill/list"],
  getSkill: ["runs:read", "GET", () => "/v1/skill/skill_contract"],
  getSkillYaml: ["runs:read", "GET", () => "/v1/skill/skill_contract/yaml"],
  putSkill: ["skills:write", "PUT", () => "/v1/skill/skill_contract"],
  deleteSkill: ["skills:write", "DELETE", () => "/v1/skill/skill_contract"],
  validateSkill: ["skills:write", "POST", () => "/v1/skill/validate"],
  putSecret: ["secrets:write", "PUT", () => "/v1/secret/TOKEN"],
  deleteSecret: ["secrets:write", "DELETE", () => "/v1/secret/TOKEN"],
  listSecrets: ["runs:read", "GET", () => "/v1/secret/list"],
  listProfiles: ["runs:read", "GET", () => "/v1/profile/list"],
  getProfile: ["runs:read", "GET", () => "/v1/profile/acme"],
  putProfile: ["profiles:write", "PUT", () => "/v1/profile/acme"],
  deleteProfile: ["profiles:write", "DELETE", () => "/v1/profile/acme"],
  createWebhook: ["webhooks:write", "POST", () => "/v1/webhook"],
  listWebhooks: ["runs:read", "GET", () => "/v1/webhook/list"],
  deleteWebhook: ["webhooks:write", "DELETE", () => "/v1/webhook/wh_x"],
  listWebhookDeliveries: ["runs:read", "GET", () => "/v1/webhook/wh_x/deliveries"],
  redeliverWebhook: ["webhooks:write", "POST", () => "/v1/webhook/wh_x/deliveries/msg_x/redeliver"],
  createSchedule: ["schedules:write", "POST", () => "/v1/schedule"],
  previewScheduleRuns: ["runs:read", "POST", () => "/v1/schedule/next_runs"],
  listSchedules: ["runs:read", "GET", () => "/v1/schedule/list"],
  getSchedule: ["runs:read", "GET", () => "/v1/schedule/sch_x"],
  updateSchedule: ["schedules:write", "PATCH", () => "/v1/schedule/sch_x"],
  deleteSchedule: ["schedules:write", "DELETE", () => "/v1/schedule/sch_x"],
  triggerSchedule: ["schedules:write", "POST", () => "/v1/schedule/sch_x/trigger"],
  listScheduleTicks: ["runs:read", "GET", () => "/v1/schedule/sch_x/ticks"],
  createKey: ["keys:write", "POST", () => "/v1/key"],
  listKeys: ["keys:write", "GET", () => "/v1/key/list"],
  deleteKey: ["keys:write", "DELETE", () => "/v1/key/key_x"],
  agentClaim: ["agent", "POST", () => "/v1/agent/claim"],
  agentRunEvents: ["agent", "POST", (ctx) => `/v1/agent/run/${ctx.aliceRun}/events`],
  agentRunEnd: ["agent", "POST", (ctx) => `/v1/agent/run/${ctx.aliceRun}/end`],
  agentPutRunFile: ["agent", "PUT", (ctx) => `/v1/agent/run/${ctx.aliceRun}/files/a.csv`],
  agentPutRunVideo: ["agent", "PUT", (ctx) => `/v1/agent/run/${ctx.aliceRun}/video`],
  agentGetRunUpload: ["agent", "GET", (ctx) => `/v1/agent/run/${ctx.aliceRun}/uploads/file_x`],
  agentPutRunProfile: ["agent", "PUT", (ctx) => `/v1/agent/run/${ctx.aliceRun}/profile`],
  listAgents: ["runs:read", "GET", () => "/v1/agent/list"],
};

/** Every scope but `scope`: a key that may do all else. */
export function allBut(scope: Scope): Scope[] {
  return SCOPES.filter((s) => s !== scope);
}

/** A request with a key of alice's that has every scope but the one the operation needs. */
function forbidden(scope: Scope, method: string, path: (ctx: Ctx) => string): Provocation {
  return {
    name: `a key with every scope but ${scope}`,
    send: async (ctx) =>
      call(ctx.main.origin, method, path(ctx), {
        key: await ctx.main.keyFor("alice", allBut(scope)),
      }),
    check: (reply) =>
      expect(reply.body).toEqual({ detail: `This API key lacks the scope ${scope}` }),
  };
}

let limitedOwners = 0;

/**
 * A request on the server that allows one request per owner a minute, after another operation
 * used the owner's one: the budget is the owner's, across operations.
 */
function rateLimited(method: string, path: (ctx: Ctx) => string): Provocation {
  return {
    name: "an owner past RATE_LIMIT_PER_MINUTE (1 on this server)",
    send: async (ctx) => {
      limitedOwners += 1;
      const key = await ctx.limited.keyFor(`limited_${limitedOwners}`);
      const first = await call(ctx.limited.origin, "GET", "/v1/skill/list", { key });
      expect(first.status, first.text).toBe(200);
      return call(ctx.limited.origin, method, path(ctx), { key });
    },
    check: (reply) => {
      expect(Number(reply.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(reply.headers.get("ratelimit")).toMatch(/^"owner"; r=0; t=\d+$/);
      expect(reply.headers.get("ratelimit-policy")).toMatch(
        /^"owner"; q=1; w=60; pk=:[A-Za-z0-9+/=]+:$/,
      );
    },
  };
}

/** The helpers of contract-table.ts that the key operations' rows share. */
export interface RowHelpers {
  unauthorized(send: Send): Provocation[];
  failing(send: (ctx: Ctx) => Promise<Reply>): Provocation[];
}

/** Adds a 403 and a 429 to every guarded operation, and the key operations' rows, to `table`. */
export function addScopeAndKeyRows(table: Table, helpers: RowHelpers): void {
  Object.assign(table, keyOperations(helpers));
  for (const [operationId, [scope, method, path]] of Object.entries(GUARDED)) {
    const rows = table[operationId] ?? {};
    table[operationId] = rows;
    const forbid = rows["403"];
    rows["403"] = [...(Array.isArray(forbid) ? forbid : []), forbidden(scope, method, path)];
    // The live streams' 429 (too many streams open) has its own rows already.
    const limited = rows["429"];
    rows["429"] = [...(Array.isArray(limited) ? limited : []), rateLimited(method, path)];
  }
}

const KEY_ID = /^key_[0-9a-f-]{36}$/;

function keyOperations({ unauthorized, failing }: RowHelpers): Table {
  return {
    createKey: {
      "201": [
        {
          name: "a named key with two scopes",
          send: (ctx) =>
            call(ctx.main.origin, "POST", "/v1/key", {
              key: ctx.alice,
              json: { name: "contract", scopes: ["runs:write", "runs:read"] },
            }),
          check: (reply) => {
            const body = reply.body as Record<string, unknown>;
            expect(body.id).toMatch(KEY_ID);
            expect(body).toMatchObject({ name: "contract", scopes: ["runs:read", "runs:write"] });
            expect(body.key).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
            expect((body.key as string).startsWith(body.prefix as string)).toBe(true);
          },
        },
        {
          name: "an unnamed key with scopes its creator holds, from a key that is not admin",
          send: async (ctx) =>
            call(ctx.main.origin, "POST", "/v1/key", {
              key: await ctx.main.keyFor("alice", ["keys:write", "runs:read"]),
              json: { scopes: ["runs:read"] },
            }),
          check: (reply) => expect(reply.body).toMatchObject({ name: null, scopes: ["runs:read"] }),
        },
      ],
      "401": unauthorized((ctx, key) =>
        call(ctx.main.origin, "POST", "/v1/key", { key, json: { scopes: ["runs:read"] } }),
      ),
      "403": [
        {
          name: "a scope the creating key lacks",
          send: async (ctx) =>
            call(ctx.main.origin, "POST", "/v1/key", {
              key: await ctx.main.keyFor("alice", ["keys:write", "runs:read"]),
              json: { scopes: ["runs:read", "secrets:write"] },
            }),
          check: (reply) =>
            expect(reply.body).toEqual({
              detail: "A key can only give scopes it has; this API key lacks secrets:write",
            }),
        },
      ],
      "413": [
        {
          name: "a body over 1 MiB",
          send: (ctx) =>
            call(ctx.main.origin, "POST", "/v1/key", {
              key: ctx.alice,
              body: oversizedRunBody("skill_x"),
            }),
        },
      ],
      "422": [
        {
          name: "no scopes",
          send: (ctx) =>
            call(ctx.main.origin, "POST", "/v1/key", { key: ctx.alice, json: { scopes: [] } }),
        },
        {
          name: "an unknown scope",
          send: (ctx) =>
            call(ctx.main.origin, "POST", "/v1/key", {
              key: ctx.alice,
              json: { scopes: ["runs:delete"] },
            }),
        },
        {
          name: "a name over 100 characters",
          send: (ctx) =>
            call(ctx.main.origin, "POST", "/v1/key", {
              key: ctx.alice,
              json: { name: "n".repeat(101), scopes: [ADMIN] },
            }),
        },
      ],
      "500": failing((ctx) =>
        call(ctx.broken.origin, "POST", "/v1/key", {
          key: ctx.brokenKey,
          json: { scopes: ["runs:read"] },
        }),
      ),
    },

    listKeys: {
      "200": [
        {
          name: "the owner's active keys",
          send: (ctx) => call(ctx.main.origin, "GET", "/v1/key/list", { key: ctx.alice }),
          check: (reply, ctx) => {
            const keys = reply.body as { id: string; prefix: string }[];
            expect(keys.length).toBeGreaterThan(0);
            expect(keys.some((k) => ctx.alice.startsWith(k.prefix))).toBe(true);
            expect(reply.text).not.toContain(ctx.alice);
            expect(reply.text).not.toContain(ctx.bob.slice(0, 10));
          },
        },
      ],
      "401": unauthorized((ctx, key) => call(ctx.main.origin, "GET", "/v1/key/list", { key })),
      "500": failing((ctx) =>
        call(ctx.broken.origin, "GET", "/v1/key/list", { key: ctx.brokenKey }),
      ),
    },

    deleteKey: {
      "204": [
        {
          name: "a key of the owner's",
          send: async (ctx) => {
            const { info } = await ctx.main.repos.apiKeys.create("alice");
            return call(ctx.main.origin, "DELETE", `/v1/key/${info.id}`, { key: ctx.alice });
          },
        },
      ],
      "401": unauthorized((ctx, key) => call(ctx.main.origin, "DELETE", "/v1/key/key_x", { key })),
      "404": [
        {
          name: "an unknown key",
          send: (ctx) => call(ctx.main.origin, "DELETE", "/v1/key/key_x", { key: ctx.alice }),
        },
        {
          name: "another owner's key",
          send: async (ctx) => {
            const { info } = await ctx.main.repos.apiKeys.create("bob");
            return call(ctx.main.origin, "DELETE", `/v1/key/${info.id}`, { key: ctx.alice });
          },
        },
      ],
      "413": [
        {
          name: "a body over 1 MiB (a revocation takes none, but any body is read)",
          send: (ctx) =>
            call(ctx.main.origin, "DELETE", "/v1/key/key_x", {
              key: ctx.alice,
              body: oversizedRunBody("skill_x"),
            }),
        },
      ],
      "422": [
        {
          name: "an id over 128 characters",
          send: (ctx) =>
            call(ctx.main.origin, "DELETE", `/v1/key/${TOO_LONG_ID}`, { key: ctx.alice }),
        },
      ],
      "500": failing((ctx) =>
        call(ctx.broken.origin, "DELETE", "/v1/key/key_x", { key: ctx.brokenKey }),
      ),
    },
  };
}
