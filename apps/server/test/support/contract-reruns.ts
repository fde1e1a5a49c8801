import { expect } from "vitest";
import { testSecretBox } from "../../src/test-support/test-secrets.js";
import { startTestServer, type TestServer } from "../../src/test-support/test-server.js";
import type { Ctx, Provocation } from "./contract-table.js";
import { call, oversizedRunBody, type Reply, skillRecord } from "./http.js";

// The rows of POST /v1/run/{id}/rerun. The contract's server runs no worker: a run that failed
// and the checkpoint it kept are written as a worker would have left them.

const STEP = "step 1 (log)";

/** A run of `skill` for `owner` that ended in reset at STEP, with its checkpoint before it. */
export async function failedRunWithCheckpoint(
  server: TestServer,
  owner: string,
  skill: string,
): Promise<string> {
  const { id } = await server.repos.runs.create({
    owner,
    skill: { id: skill, name: "Contract" },
    inputs: {},
  });
  const at = new Date();
  const error = { step: STEP, message: "it failed" };
  await server.db.prisma.run.update({
    where: { id },
    data: { state: "reset", endTime: at, data: JSON.stringify({ error }) },
  });
  const json = JSON.stringify({
    version: 1,
    step: STEP,
    path: [{ index: 0 }],
    steps_run: 0,
    skills: [{ skill_id: skill, inputs: {}, data: {}, vars: {}, steps: {} }],
  });
  const state = testSecretBox().seal(json, ["checkpoint", id]);
  await server.db.prisma.runCheckpoint.create({
    data: {
      runId: id,
      stepLabel: STEP,
      seq: 0,
      topLevel: true,
      state,
      bytes: json.length,
      createdAt: at,
    },
  });
  return id;
}

/** A rerun on a server of its own whose OWNER_MAX_QUEUED is 1, once alice has a run queued. */
async function withQueueFull(skill: string): Promise<Reply> {
  const server = await startTestServer({ env: { OWNER_MAX_QUEUED: "1" } });
  try {
    const key = await server.keyFor("alice");
    await server.importSkills("alice", [skillRecord(skill, "Alice's")]);
    const failed = await failedRunWithCheckpoint(server, "alice", skill);
    const first = await call(server.origin, "POST", "/v1/run/", { key, json: { skill_id: skill } });
    expect(first.status, first.text).toBe(200);
    return await call(server.origin, "POST", `/v1/run/${failed}/rerun`, { key });
  } finally {
    await server.close();
  }
}

/** The rows of `rerunRun`; `queued` makes a queued run of alice's (never ended). */
export function rerunRows(
  skill: string,
  helpers: {
    unauthorized(send: (ctx: Ctx, key: string | undefined) => Promise<Reply>): Provocation[];
    failing(send: (ctx: Ctx) => Promise<Reply>): Provocation[];
    queued(ctx: Ctx): Promise<string>;
  },
): Record<string, Provocation[]> {
  const rerun = async (ctx: Ctx, body?: unknown, runId?: string) =>
    call(
      ctx.main.origin,
      "POST",
      `/v1/run/${runId ?? (await failedRunWithCheckpoint(ctx.main, "alice", skill))}/rerun`,
      { key: ctx.alice, ...(body === undefined ? {} : { json: body }) },
    );
  const fromStep = (message: string) => ({
    detail: [{ loc: ["body", "from_step"], msg: `Value error, ${message}`, type: "value_error" }],
  });
  return {
    "201": [
      {
        name: "a failed run, from the step it failed at",
        send: (ctx) => rerun(ctx),
        check: (reply) =>
          expect(reply.body).toMatchObject({ state: null, rerun_of: { step: STEP } }),
      },
      {
        name: "a failed run, from a step named, with inputs",
        send: (ctx) => rerun(ctx, { from_step: STEP, inputs: {} }),
      },
    ],
    "401": helpers.unauthorized(async (ctx, key) =>
      call(ctx.main.origin, "POST", `/v1/run/${ctx.aliceRun}/rerun`, { key }),
    ),
    "404": [
      {
        name: "an unknown run",
        send: (ctx) =>
          call(ctx.main.origin, "POST", "/v1/run/run_unknown/rerun", { key: ctx.alice }),
      },
      {
        name: "another owner's run",
        send: (ctx) =>
          call(ctx.main.origin, "POST", `/v1/run/${ctx.bobRun}/rerun`, { key: ctx.alice }),
      },
    ],
    "409": [
      {
        name: "a run that has not ended",
        send: async (ctx) => rerun(ctx, undefined, await helpers.queued(ctx)),
        check: (reply) =>
          expect(reply.body).toEqual({
            detail: "Run cannot be rerun until it has ended: it is queued, waiting for a worker",
          }),
      },
    ],
    "413": [
      {
        name: "a body over 1 MiB",
        send: (ctx) =>
          call(ctx.main.origin, "POST", `/v1/run/${ctx.aliceRun}/rerun`, {
            key: ctx.alice,
            body: oversizedRunBody(skill),
          }),
      },
    ],
    "422": [
      {
        name: "a step no checkpoint is kept for",
        send: (ctx) => rerun(ctx, { from_step: "nowhere" }),
        check: (reply) =>
          expect(reply.body).toEqual(
            fromStep(
              `no checkpoint is kept before step nowhere; this run can be rerun from: ${STEP}`,
            ),
          ),
      },
      {
        name: "inputs its skill refuses",
        send: (ctx) => rerun(ctx, { inputs: { unknown: 1 } }),
      },
      {
        name: "a key beside from_step and inputs",
        send: (ctx) => rerun(ctx, { step: STEP }),
      },
    ],
    "429": [
      {
        name: "a rerun more than OWNER_MAX_QUEUED of the owner's waiting",
        send: () => withQueueFull(skill),
        check: (reply) => expect(reply.headers.get("retry-after")).toBe("10"),
      },
    ],
    "500": helpers.failing((ctx) =>
      call(ctx.broken.origin, "POST", "/v1/run/run_anything/rerun", { key: ctx.brokenKey }),
    ),
  };
}
