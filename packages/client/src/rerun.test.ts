import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SkillrunClient } from "./create-client.js";
import { ApiError } from "./errors.js";
import { rerun as rerunFromStep } from "./rerun.js";
import { clientFor, startRun, startTestServer, type TestServer } from "./test-support/fixtures.js";
import { waitForRun } from "./wait-for-run.js";

// `POST /run/{id}/rerun` through the typed client, against a real server with a worker: a rerun
// is made from a run that has ended, so the runs here are executed, not left queued.
const CHECKED = `
id: skill_checked
name: Prepare, then check
inputs:
  - { json_key: broken, data_type: boolean }
steps:
  - id: prepare
    set: { prepared: true }
  - id: check
    if: "{{ inputs.broken }}"
    fail: "the check failed"
  - set: { done: true }
`;

const WAITING = `
id: skill_waiting
name: Wait a long time
timeout: 10m
steps:
  - wait: 5m
`;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ worker: { concurrency: 2 } });
});
afterAll(async () => {
  await server?.close();
});

/** A client of a fresh owner with both skills. */
async function clientOf(owner: string): Promise<SkillrunClient> {
  await server.importSkillYaml(owner, CHECKED, WAITING);
  return clientFor(server, owner);
}

/** A run of the checked skill, ended: failed at `check` when `broken`, else finished. */
async function endedRun(client: SkillrunClient, broken: boolean) {
  const id = await startRun(client, "skill_checked", { broken });
  return waitForRun(client, id, { timeoutMs: 20_000 });
}

describe("rerunning a run through the typed client", () => {
  it("reruns a failed run from the step it failed at, with inputs of its own", async () => {
    const client = await clientOf("rerun-failed");
    const failed = await endedRun(client, true);
    expect(failed).toMatchObject({ state: "reset", data: { error: { step: "check" } } });

    const { data, error, response } = await client.POST("/run/{id}/rerun", {
      params: { path: { id: failed.id } },
      body: { inputs: { broken: false } },
    });

    expect(error).toBeUndefined();
    expect(response.status).toBe(201);
    expect(data).toMatchObject({
      skill_id: "skill_checked",
      inputs: { broken: false },
      rerun_of: { run_id: failed.id, step: "check" },
    });
    const rerun = await waitForRun(client, data?.id ?? "", { timeoutMs: 20_000 });
    expect(rerun).toMatchObject({
      state: "finish",
      // `prepared` comes from the original's checkpoint: its step was not run again.
      data: { prepared: true, done: true },
      rerun_of: { run_id: failed.id, step: "check" },
    });
  });

  it("reruns from a step named by its label, with the original's inputs when given none", async () => {
    const client = await clientOf("rerun-from-step");
    const finished = await endedRun(client, false);

    const { data, response } = await client.POST("/run/{id}/rerun", {
      params: { path: { id: finished.id } },
      body: { from_step: "prepare" },
    });

    expect(response.status).toBe(201);
    expect(data?.rerun_of).toEqual({ run_id: finished.id, step: "prepare" });
    expect(data?.inputs).toEqual({ broken: false });
    const rerun = await waitForRun(client, data?.id ?? "", { timeoutMs: 20_000 });
    expect(rerun.state).toBe("finish");
    // Every other run is no rerun.
    expect(finished.rerun_of).toBeNull();
  });

  it("has a helper, rerun, that gives the new run or throws an ApiError", async () => {
    const client = await clientOf("rerun-helper");
    const failed = await endedRun(client, true);
    const queued = await rerunFromStep(client, failed.id, { inputs: { broken: false } });
    expect(queued.rerun_of).toEqual({ run_id: failed.id, step: "check" });
    expect((await waitForRun(client, queued.id, { timeoutMs: 20_000 })).state).toBe("finish");
    const refused = await rerunFromStep(client, failed.id, { from_step: "nowhere" }).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 422, detail: [{ loc: ["body", "from_step"] }] });
  });

  it("returns the typed 404, 409 and 422 bodies", async () => {
    const client = await clientOf("rerun-refused");
    const rerun = (id: string, body?: { from_step?: string; inputs?: Record<string, unknown> }) =>
      client.POST("/run/{id}/rerun", { params: { path: { id } }, ...(body && { body }) });

    const missing = await rerun("run_missing");
    expect(missing.response.status).toBe(404);
    expect(missing.data).toBeUndefined();
    expect(missing.error).toEqual({ detail: "Run not found" });

    const waiting = await startRun(client, "skill_waiting");
    const notEnded = await rerun(waiting);
    expect(notEnded.response.status).toBe(409);
    expect(notEnded.error?.detail).toMatch(/^Run cannot be rerun until it has ended: it is /);
    await client.POST("/run/{id}/cancel", { params: { path: { id: waiting } } });

    const finished = await endedRun(client, false);
    const noFailure = await rerun(finished.id);
    expect(noFailure.response.status).toBe(422);
    expect(noFailure.error).toEqual({
      detail: [
        {
          loc: ["body", "from_step"],
          msg: "Value error, the run did not fail at a step: say which step to start at",
          type: "value_error",
        },
      ],
    });

    const unknownStep = await rerun(finished.id, { from_step: "nowhere" });
    expect(unknownStep.response.status).toBe(422);
    expect(unknownStep.error).toEqual({
      detail: [
        {
          loc: ["body", "from_step"],
          msg: "Value error, no checkpoint is kept before step nowhere; this run can be rerun from: prepare, check, step 3 (set)",
          type: "value_error",
        },
      ],
    });

    const badInputs = await rerun(finished.id, { from_step: "check", inputs: {} });
    expect(badInputs.response.status).toBe(422);
    expect(badInputs.error).toEqual({
      detail: [{ loc: ["body", "inputs", "broken"], msg: "Field required", type: "missing" }],
    });
  });
});
