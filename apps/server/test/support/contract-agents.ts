import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { AGENT_PROTOCOL, AGENT_PROTOCOL_HEADER } from "../../src/agent-api/protocol.js";
import type { NewRun } from "../../src/db/repositories/runs.js";
import { startTestServer, type TestServer } from "../../src/test-support/test-server.js";
import type { RowHelpers } from "./contract-keys.js";
import type { Ctx, Provocation, Table } from "./contract-table.js";
import { call, oversizedRunBody, type Reply } from "./http.js";

/**
 * The contract table's rows for the agent operations (agentClaim, agentRunEvents, agentRunEnd,
 * agentPutRunFile, agentPutRunVideo, agentGetRunUpload, agentPutRunProfile, listAgents): every status each declares.
 */

/** A fresh agent id, as `skillrun agent` makes one. */
export function newAgentId(): string {
  return `agent_${randomBytes(16).toString("hex")}`;
}

const PROTOCOL = { [AGENT_PROTOCOL_HEADER]: AGENT_PROTOCOL };

/** A call of an agent operation with the protocol header (or another version's). */
function agentCall(
  server: TestServer,
  method: string,
  path: string,
  key: string | undefined,
  json: unknown,
  protocol = AGENT_PROTOCOL,
): Promise<Reply> {
  return call(server.origin, method, path, {
    key,
    json,
    headers: { [AGENT_PROTOCOL_HEADER]: protocol },
  });
}

/** A multipart upload to an agent operation. */
async function agentUpload(
  server: TestServer,
  path: string,
  key: string | undefined,
  bytes: Uint8Array,
  type = "text/csv",
): Promise<Reply> {
  const form = new FormData();
  form.append("file", new Blob([bytes], { type }), "report.csv");
  const response = await fetch(`${server.origin}${path}`, {
    method: "PUT",
    headers: {
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
      ...PROTOCOL,
    },
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

/** An agent key of `owner`'s on `server`. */
function agentKey(server: TestServer, owner = "alice"): Promise<string> {
  return server.keyFor(owner, ["agent"]);
}

/** What a client run is queued with besides its skill: its inputs, its browser profile. */
type ClientRunOptions = Pick<NewRun, "inputs" | "profile">;

/** Queues a client run of alice's contract skill on `server`. */
async function clientRun(
  server: TestServer,
  skillId: string,
  options: Partial<ClientRunOptions> = {},
): Promise<string> {
  const run = await server.repos.runs.create({
    owner: "alice",
    skill: { id: skillId, name: "Contract" },
    inputs: {},
    ...options,
    client: { timeoutMs: 600_000 },
  });
  return run.id;
}

/** A client run of alice's claimed by a fresh agent over the API: its id and the agent's. */
export async function heldClientRun(
  server: TestServer,
  skillId: string,
  options: Partial<ClientRunOptions> = {},
): Promise<{ runId: string; agentId: string; key: string }> {
  const key = await agentKey(server);
  const runId = await clientRun(server, skillId, options);
  const agentId = newAgentId();
  const claimed = await agentCall(server, "POST", "/v1/agent/claim", key, {
    agent_id: agentId,
    name: "contract",
    version: "0.0.2",
    wait: 0,
  });
  expect(claimed.status, claimed.text).toBe(200);
  expect((claimed.body as { run_id: string }).run_id).toBe(runId);
  return { runId, agentId, key };
}

/** An upload of `owner`'s (POST /v1/file): its id. */
export async function uploadOf(
  server: TestServer,
  bytes: Uint8Array,
  owner = "alice",
): Promise<string> {
  const form = new FormData();
  form.append("file", new Blob([bytes], { type: "text/csv" }), "orders.csv");
  const response = await fetch(`${server.origin}/v1/file`, {
    method: "POST",
    headers: { authorization: `Bearer ${await server.keyFor(owner)}` },
    body: form,
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { id: string }).id;
}

/** A storage state as a browser's profile holds it: one cookie, no values of note. */
export const STORAGE_STATE = {
  cookies: [
    {
      name: "session",
      value: "s1",
      domain: "shop.example",
      path: "/",
      expires: -1,
      httpOnly: true,
      secure: true,
      sameSite: "Lax",
    },
  ],
  origins: [],
};

/** The skill of the client runs agents claim here: one whose stored definition an agent can run. */
export const AGENT_SKILL = "skill_agent_contract";
export const AGENT_SKILL_YAML = `id: ${AGENT_SKILL}\nname: Agent contract\nsteps:\n  - log: x\n`;

const NO_RUN = "run_00000000-0000-7000-8000-000000000000";

export function agentRows({ unauthorized, failing }: RowHelpers): Table {
  const skillId = AGENT_SKILL;
  const claimBody = (agentId = newAgentId()) => ({
    agent_id: agentId,
    name: "contract",
    version: "0.0.2",
    wait: 0,
  });
  /** The run-scoped operations' shared rows: 404, 409, 413, 426. */
  const runRows = (
    send: (
      ctx: Ctx,
      target: { runId: string; agentId: string; key: string },
      protocol?: string,
    ) => Promise<Reply>,
  ): Record<string, Provocation[]> => ({
    "404": [
      {
        name: "an unknown run",
        send: async (ctx) =>
          send(ctx, { runId: NO_RUN, agentId: newAgentId(), key: await agentKey(ctx.main) }),
      },
      {
        name: "another owner's run, held by alice's agent",
        send: async (ctx) => {
          const held = await heldClientRun(ctx.main, skillId);
          return send(ctx, { ...held, key: await agentKey(ctx.main, "bob") });
        },
      },
    ],
    "409": [
      {
        name: "a run another agent holds (fenced: nothing written)",
        send: async (ctx) => {
          const held = await heldClientRun(ctx.main, skillId);
          return send(ctx, { ...held, agentId: newAgentId() });
        },
        check: (reply) =>
          expect(reply.body).toEqual({
            detail: "This agent does not hold the run: another agent or worker holds it",
          }),
      },
    ],
    "426": [
      {
        name: "an agent of another protocol version",
        send: async (ctx) => send(ctx, await heldClientRun(ctx.main, skillId), "2"),
        check: (reply) => expect(reply.headers.get(AGENT_PROTOCOL_HEADER)).toBe(AGENT_PROTOCOL),
      },
    ],
  });

  const events = (ctx: Ctx, t: { runId: string; agentId: string; key: string }, p?: string) =>
    agentCall(
      ctx.main,
      "POST",
      `/v1/agent/run/${t.runId}/events`,
      t.key,
      { agent_id: t.agentId, events: [{ at: new Date().toISOString(), type: "run_started" }] },
      p,
    );
  const end = (ctx: Ctx, t: { runId: string; agentId: string; key: string }, p?: string) =>
    agentCall(
      ctx.main,
      "POST",
      `/v1/agent/run/${t.runId}/end`,
      t.key,
      { agent_id: t.agentId, state: "finish", events: [], data: { done: true } },
      p,
    );
  const putFile = (ctx: Ctx, t: { runId: string; agentId: string; key: string }, p?: string) =>
    p === undefined
      ? agentUpload(
          ctx.main,
          `/v1/agent/run/${t.runId}/files/report.csv?agent_id=${t.agentId}`,
          t.key,
          new TextEncoder().encode("a,b\n1,2\n"),
        )
      : protocolUpload(
          ctx,
          `/v1/agent/run/${t.runId}/files/report.csv?agent_id=${t.agentId}`,
          t.key,
          p,
        );
  /** GET of an upload the held run's input names (`file`), or of any id for the shared rows. */
  const getUpload =
    (file = "file_00000000-0000-7000-8000-000000000000") =>
    (ctx: Ctx, t: { runId: string; agentId: string; key: string }, p?: string) =>
      agentCall(
        ctx.main,
        "GET",
        `/v1/agent/run/${t.runId}/uploads/${file}?agent_id=${t.agentId}`,
        t.key,
        undefined,
        p,
      );
  const putProfile = (ctx: Ctx, t: { runId: string; agentId: string; key: string }, p?: string) =>
    agentCall(
      ctx.main,
      "PUT",
      `/v1/agent/run/${t.runId}/profile?agent_id=${t.agentId}`,
      t.key,
      STORAGE_STATE,
      p,
    );
  // A profile of its own for each run: runs that save one profile are claimed one at a time.
  let profiles = 0;
  const savesProfile = () => ({
    profile: { name: `contract-${++profiles}`, save: "on_success" as const },
  });
  const putVideo = (ctx: Ctx, t: { runId: string; agentId: string; key: string }, p?: string) =>
    p === undefined
      ? agentUpload(
          ctx.main,
          `/v1/agent/run/${t.runId}/video?agent_id=${t.agentId}`,
          t.key,
          new Uint8Array([0x1a, 0x45, 0xdf, 0xa3, 1, 2, 3]),
          "video/webm",
        )
      : protocolUpload(ctx, `/v1/agent/run/${t.runId}/video?agent_id=${t.agentId}`, t.key, p);

  return {
    agentClaim: {
      "200": [
        {
          name: "a queued client run of the key's owner, with its job",
          send: async (ctx) => {
            const runId = await clientRun(ctx.main, skillId);
            const reply = await agentCall(
              ctx.main,
              "POST",
              "/v1/agent/claim",
              await agentKey(ctx.main),
              claimBody(),
            );
            expect((reply.body as { run_id: string }).run_id).toBe(runId);
            return reply;
          },
        },
      ],
      "204": [
        {
          name: "no client run of the owner's queued within wait (cloud runs are not taken)",
          send: async (ctx) =>
            agentCall(
              ctx.main,
              "POST",
              "/v1/agent/claim",
              await agentKey(ctx.main, "carol"),
              claimBody(),
            ),
        },
      ],
      "401": unauthorized((ctx, key) =>
        agentCall(ctx.main, "POST", "/v1/agent/claim", key, claimBody()),
      ),
      "413": [
        {
          name: "a body over 1 MiB",
          send: async (ctx) =>
            call(ctx.main.origin, "POST", "/v1/agent/claim", {
              key: await agentKey(ctx.main),
              body: oversizedRunBody("skill_x"),
              headers: PROTOCOL,
            }),
        },
      ],
      "422": [
        {
          name: "an agent id of the wrong form",
          send: async (ctx) =>
            agentCall(ctx.main, "POST", "/v1/agent/claim", await agentKey(ctx.main), {
              ...claimBody("me"),
            }),
        },
        {
          name: "a wait over 30 seconds",
          send: async (ctx) =>
            agentCall(ctx.main, "POST", "/v1/agent/claim", await agentKey(ctx.main), {
              ...claimBody(),
              wait: 31,
            }),
        },
        {
          name: "no protocol header",
          send: async (ctx) =>
            call(ctx.main.origin, "POST", "/v1/agent/claim", {
              key: await agentKey(ctx.main),
              json: claimBody(),
            }),
        },
      ],
      "426": [
        {
          name: "an agent of another protocol version",
          send: async (ctx) =>
            agentCall(
              ctx.main,
              "POST",
              "/v1/agent/claim",
              await agentKey(ctx.main),
              claimBody(),
              "2",
            ),
          check: (reply) => expect(reply.headers.get(AGENT_PROTOCOL_HEADER)).toBe(AGENT_PROTOCOL),
        },
      ],
      "500": failing((ctx) =>
        agentCall(ctx.broken, "POST", "/v1/agent/claim", ctx.brokenKey, claimBody()),
      ),
    },

    agentRunEvents: {
      "200": [
        {
          name: "a batch for a run the agent holds",
          send: async (ctx) => events(ctx, await heldClientRun(ctx.main, skillId)),
          check: (reply) => expect(reply.body).toEqual({ state: "play", pause_requested: false }),
        },
      ],
      "401": unauthorized((ctx, key) =>
        events(ctx, { runId: ctx.aliceRun, agentId: newAgentId(), key: key as string }),
      ),
      ...runRows(events),
      "413": [
        {
          name: "a body over 1 MiB",
          send: async (ctx) =>
            call(ctx.main.origin, "POST", `/v1/agent/run/${ctx.aliceRun}/events`, {
              key: await agentKey(ctx.main),
              body: oversizedRunBody("skill_x"),
              headers: PROTOCOL,
            }),
        },
      ],
      "422": [
        {
          name: "a batch of 501 events",
          send: async (ctx) => {
            const held = await heldClientRun(ctx.main, skillId);
            const event = { at: new Date().toISOString(), type: "log", message: "x" };
            return agentCall(ctx.main, "POST", `/v1/agent/run/${held.runId}/events`, held.key, {
              agent_id: held.agentId,
              events: Array.from({ length: 501 }, () => event),
            });
          },
        },
        {
          name: "an event of a type only the server writes (run_finished)",
          send: async (ctx) => {
            const held = await heldClientRun(ctx.main, skillId);
            return agentCall(ctx.main, "POST", `/v1/agent/run/${held.runId}/events`, held.key, {
              agent_id: held.agentId,
              events: [{ at: new Date().toISOString(), type: "run_finished" }],
            });
          },
        },
      ],
      "500": failing((ctx) =>
        agentCall(ctx.broken, "POST", `/v1/agent/run/${NO_RUN}/events`, ctx.brokenKey, {
          agent_id: newAgentId(),
          events: [],
        }),
      ),
    },

    agentRunEnd: {
      "200": [
        {
          name: "the ending of a run the agent holds",
          send: async (ctx) => end(ctx, await heldClientRun(ctx.main, skillId)),
          check: (reply) => expect(reply.body).toEqual({ state: "finish", pause_requested: false }),
        },
      ],
      "401": unauthorized((ctx, key) =>
        end(ctx, { runId: ctx.aliceRun, agentId: newAgentId(), key: key as string }),
      ),
      ...runRows(end),
      "413": [
        {
          name: "a body over 1 MiB",
          send: async (ctx) =>
            call(ctx.main.origin, "POST", `/v1/agent/run/${ctx.aliceRun}/end`, {
              key: await agentKey(ctx.main),
              body: oversizedRunBody("skill_x"),
              headers: PROTOCOL,
            }),
        },
      ],
      "422": [
        {
          name: "a state the agent cannot report",
          send: async (ctx) => {
            const held = await heldClientRun(ctx.main, skillId);
            return agentCall(ctx.main, "POST", `/v1/agent/run/${held.runId}/end`, held.key, {
              agent_id: held.agentId,
              state: "play",
              events: [],
            });
          },
        },
      ],
      "500": failing((ctx) =>
        agentCall(ctx.broken, "POST", `/v1/agent/run/${NO_RUN}/end`, ctx.brokenKey, {
          agent_id: newAgentId(),
          state: "finish",
          events: [],
        }),
      ),
    },

    agentPutRunFile: {
      "204": [
        {
          name: "a file of a run the agent holds",
          send: async (ctx) => putFile(ctx, await heldClientRun(ctx.main, skillId)),
        },
      ],
      "401": unauthorized((ctx, key) =>
        agentUpload(
          ctx.main,
          `/v1/agent/run/${ctx.aliceRun}/files/a.csv?agent_id=${newAgentId()}`,
          key,
          new Uint8Array([1]),
        ),
      ),
      ...runRows(putFile),
      "413": [
        {
          name: "files past RUN_FILES_MAX_BYTES (1 MiB on this server)",
          send: (ctx) => withSmallLimits(ctx, skillId, "files/big.csv", RUN_FILES_LIMIT + 1),
        },
      ],
      "422": [
        {
          name: "a name no run file can have",
          send: async (ctx) => {
            const held = await heldClientRun(ctx.main, skillId);
            return agentUpload(
              ctx.main,
              `/v1/agent/run/${held.runId}/files/.hidden?agent_id=${held.agentId}`,
              held.key,
              new Uint8Array([1]),
            );
          },
        },
        {
          name: "no agent_id",
          send: async (ctx) => {
            const held = await heldClientRun(ctx.main, skillId);
            return agentUpload(
              ctx.main,
              `/v1/agent/run/${held.runId}/files/a.csv`,
              held.key,
              new Uint8Array([1]),
            );
          },
        },
      ],
      "500": failing((ctx) =>
        agentUpload(
          ctx.broken,
          `/v1/agent/run/${NO_RUN}/files/a.csv?agent_id=${newAgentId()}`,
          ctx.brokenKey,
          new Uint8Array([1]),
        ),
      ),
    },

    agentPutRunVideo: {
      "204": [
        {
          name: "the video of a run the agent holds",
          send: async (ctx) => putVideo(ctx, await heldClientRun(ctx.main, skillId)),
        },
      ],
      "401": unauthorized((ctx, key) =>
        agentUpload(
          ctx.main,
          `/v1/agent/run/${ctx.aliceRun}/video?agent_id=${newAgentId()}`,
          key,
          new Uint8Array([1]),
        ),
      ),
      ...runRows(putVideo),
      "413": [
        {
          name: "a video past OWNER_STORAGE_MAX_BYTES (10 MiB on this server)",
          send: (ctx) => withSmallLimits(ctx, skillId, "video", STORAGE_LIMIT + 1),
          check: (reply) =>
            expect((reply.body as { detail: string }).detail).toMatch(/^Storage quota exceeded/),
        },
      ],
      "422": [
        {
          name: "no agent_id",
          send: async (ctx) => {
            const held = await heldClientRun(ctx.main, skillId);
            return agentUpload(
              ctx.main,
              `/v1/agent/run/${held.runId}/video`,
              held.key,
              new Uint8Array([1]),
            );
          },
        },
      ],
      "500": failing((ctx) =>
        agentUpload(
          ctx.broken,
          `/v1/agent/run/${NO_RUN}/video?agent_id=${newAgentId()}`,
          ctx.brokenKey,
          new Uint8Array([1]),
        ),
      ),
    },

    agentGetRunUpload: {
      "200": [
        {
          name: "an upload the held run's input names, byte for byte",
          send: async (ctx) => {
            const bytes = new TextEncoder().encode("order,qty\n1,2\n");
            const file = await uploadOf(ctx.main, bytes);
            const held = await heldClientRun(ctx.main, skillId, { inputs: { orders: file } });
            const reply = await getUpload(file)(ctx, held);
            expect(reply.bytes).toEqual(bytes);
            return reply;
          },
        },
      ],
      "401": unauthorized((ctx, key) =>
        getUpload()(ctx, { runId: ctx.aliceRun, agentId: newAgentId(), key: key as string }),
      ),
      ...runRows(getUpload()),
      "404": [
        ...(runRows(getUpload())["404"] ?? []),
        {
          name: "an upload of the owner's that the run's inputs do not name",
          send: async (ctx) => {
            const file = await uploadOf(ctx.main, new Uint8Array([1, 2, 3]));
            return getUpload(file)(ctx, await heldClientRun(ctx.main, skillId));
          },
        },
      ],
      "422": [
        {
          name: "no agent_id",
          send: async (ctx) => {
            const held = await heldClientRun(ctx.main, skillId);
            return agentCall(
              ctx.main,
              "GET",
              `/v1/agent/run/${held.runId}/uploads/x`,
              held.key,
              undefined,
            );
          },
        },
      ],
      "500": failing((ctx) =>
        agentCall(
          ctx.broken,
          "GET",
          `/v1/agent/run/${NO_RUN}/uploads/x?agent_id=${newAgentId()}`,
          ctx.brokenKey,
          undefined,
        ),
      ),
    },

    agentPutRunProfile: {
      "200": [
        {
          name: "the storage state of a held run whose skill saves its profile",
          send: async (ctx) =>
            putProfile(ctx, await heldClientRun(ctx.main, skillId, savesProfile())),
          check: (reply) =>
            expect(reply.body).toEqual({
              saved: true,
              version: 1,
              cookies: 1,
              bytes: expect.any(Number),
              message: expect.stringMatching(
                /^browser profile contract-\d+ saved as version 1 \(1 cookies, \d+ bytes\)$/,
              ),
            }),
        },
      ],
      "401": unauthorized((ctx, key) =>
        putProfile(ctx, { runId: ctx.aliceRun, agentId: newAgentId(), key: key as string }),
      ),
      ...runRows(putProfile),
      "413": [
        {
          name: "a body over 1 MiB",
          send: async (ctx) =>
            call(
              ctx.main.origin,
              "PUT",
              `/v1/agent/run/${ctx.aliceRun}/profile?agent_id=${newAgentId()}`,
              {
                key: await agentKey(ctx.main),
                body: oversizedRunBody("skill_x"),
                headers: PROTOCOL,
              },
            ),
        },
      ],
      "422": [
        {
          name: "a run whose skill saves no profile",
          send: async (ctx) => putProfile(ctx, await heldClientRun(ctx.main, skillId)),
          check: (reply) =>
            expect(reply.body).toMatchObject({
              detail: [
                {
                  loc: ["path", "id"],
                  msg: "Value error, the run's skill saves no browser profile",
                },
              ],
            }),
        },
        {
          name: "a body that is not a storage state",
          send: async (ctx) => {
            const held = await heldClientRun(ctx.main, skillId, savesProfile());
            return agentCall(
              ctx.main,
              "PUT",
              `/v1/agent/run/${held.runId}/profile?agent_id=${held.agentId}`,
              held.key,
              { cookies: "all of them" },
            );
          },
        },
      ],
      "500": failing((ctx) =>
        agentCall(
          ctx.broken,
          "PUT",
          `/v1/agent/run/${NO_RUN}/profile?agent_id=${newAgentId()}`,
          ctx.brokenKey,
          STORAGE_STATE,
        ),
      ),
    },

    listAgents: {
      "200": [
        {
          name: "the owner's agents, with the runs each holds",
          send: async (ctx) => {
            const held = await heldClientRun(ctx.main, skillId);
            const reply = await call(ctx.main.origin, "GET", "/v1/agent/list", { key: ctx.alice });
            const listed = reply.body as { id: string; runs: string[] }[];
            expect(listed.find((agent) => agent.id === held.agentId)?.runs).toEqual([held.runId]);
            return reply;
          },
        },
      ],
      "401": unauthorized((ctx, key) => call(ctx.main.origin, "GET", "/v1/agent/list", { key })),
      "500": failing((ctx) =>
        call(ctx.broken.origin, "GET", "/v1/agent/list", { key: ctx.brokenKey }),
      ),
    },
  };
}

/** An upload with the protocol header of another version. */
async function protocolUpload(ctx: Ctx, path: string, key: string, protocol: string) {
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array([1])]), "a.csv");
  const response = await fetch(`${ctx.main.origin}${path}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${key}`, [AGENT_PROTOCOL_HEADER]: protocol },
    body: form,
  });
  const bytes = new Uint8Array(await response.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  return {
    status: response.status,
    headers: response.headers,
    body: JSON.parse(text),
    text,
    bytes,
  };
}

// The limits of withSmallLimits' server: those the spec's examples name.
const RUN_FILES_LIMIT = 1024 * 1024;
const STORAGE_LIMIT = 10 * 1024 * 1024;

/**
 * On a server of its own with small limits for run files and owner storage: a held client run's
 * upload of `bytes` bytes to `what` (`files/<name>` or `video`).
 */
async function withSmallLimits(
  _ctx: Ctx,
  skillId: string,
  what: string,
  bytes: number,
): Promise<Reply> {
  const server = await startTestServer({
    env: {
      RUN_FILES_MAX_BYTES: String(RUN_FILES_LIMIT),
      OWNER_STORAGE_MAX_BYTES: String(STORAGE_LIMIT),
    },
  });
  try {
    await server.importSkillYaml("alice", AGENT_SKILL_YAML);
    const held = await heldClientRun(server, skillId);
    return await agentUpload(
      server,
      `/v1/agent/run/${held.runId}/${what}?agent_id=${held.agentId}`,
      held.key,
      new Uint8Array(bytes),
    );
  } finally {
    await server.close();
  }
}
