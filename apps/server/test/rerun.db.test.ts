import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunSession } from "../src/domain/api-types.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call } from "./support/http.js";
import { RunClient } from "./support/runs.js";

/**
 * `POST /v1/run/{id}/rerun` against a worker in the server and a receiver on loopback that
 * counts what it is sent: the steps before the checkpoint are never run again.
 */

const SUBMIT = `
id: submit_then_check
name: Submit, then check
inputs:
  - { json_key: base, data_type: string }
  - { json_key: broken, data_type: boolean, required: false, default: false }
  - { json_key: token, data_type: string, secret: true, required: false }
steps:
  - id: submit
    http: { url: "{{ inputs.base }}/submit", method: POST, json: { order: 1 } }
  - set: { submitted: "{{ steps.submit.status }}", token_length: "{{ inputs.token ? $length(inputs.token) : 0 }}" }
  - id: rows
    for_each:
      items: [1, 2, 3]
      steps:
        - http: { url: "{{ inputs.base }}/row/{{ vars.item }}", method: POST }
        - id: check
          if: "{{ inputs.broken and vars.item = 2 }}"
          fail: "row {{ vars.item }} is broken"
  - set: { done: true }
`;

let receiver: Server;
let base: string;
const hits = new Map<string, number>();
let server: TestServer;
let alice: RunClient;
let bobKey: string;

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://receiver").pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    response.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  server = await startTestServer({ worker: { concurrency: 2 } });
  await server.importSkillYaml("alice", SUBMIT);
  alice = new RunClient(server.origin, await server.keyFor("alice"));
  bobKey = await server.keyFor("bob");
});

afterAll(async () => {
  await server?.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

function rerun(runId: string, body?: unknown, key = alice.key) {
  return call(server.origin, "POST", `/v1/run/${runId}/rerun`, {
    key,
    ...(body === undefined ? {} : { json: body }),
  });
}

/** A run of the skill that fails at round 2 of `rows`, ended. */
async function failedRun(): Promise<RunSession> {
  const { id } = await alice.start("submit_then_check", { base, broken: true, token: "secret-1" });
  const run = await alice.ended(id);
  expect(run.state).toBe("reset");
  return run;
}

describe("a rerun", () => {
  it("starts at the failed step with the original's state, never repeating what came before", async () => {
    hits.clear();
    const failed = await failedRun();
    expect(failed.data).toMatchObject({
      error: { step: "rows #2 › check", message: "row 2 is broken" },
    });
    expect(hits.get("/submit")).toBe(1);

    const reply = await rerun(failed.id, { inputs: { base, broken: false, token: "secret-2" } });
    expect(reply.status, reply.text).toBe(201);
    const queued = reply.body as RunSession;
    expect(queued.rerun_of).toEqual({ run_id: failed.id, step: "rows #2 › check" });
    const run = await alice.ended(queued.id);
    expect(run.state).toBe("finish");
    // The data the original saved before the checkpoint, then the rerun's own.
    expect(run.data).toEqual({ submitted: 200, token_length: 8, done: true });
    expect(run.rerun_of).toEqual({ run_id: failed.id, step: "rows #2 › check" });
    // Counted at the receiver: submit once in all, row 1 and 2 once each, row 3 only by the rerun.
    expect(hits.get("/submit")).toBe(1);
    expect(hits.get("/row/1")).toBe(1);
    expect(hits.get("/row/2")).toBe(1);
    expect(hits.get("/row/3")).toBe(1);
    const events = await alice.events(run.id);
    const labels = (type: string) =>
      events.filter((event) => event.type === type).map((event) => event.step?.label);
    // The checkpoint's step runs first (its `if` now false), then the rest.
    expect(labels("step_started")).toEqual(["rows", "rows #3 › step 1 (http)", "step 4 (set)"]);
    expect(labels("step_skipped")).toEqual(["rows #2 › check", "rows #3 › check"]);
    expect(
      events.some(
        (event) =>
          event.message ===
          `a rerun of ${failed.id} from the checkpoint before step rows #2 › check`,
      ),
    ).toBe(true);
    expect(
      events.some(
        (event) => event.message === "going on from the checkpoint before step rows #2 › check",
      ),
    ).toBe(true);
    // The rerun's secret input is shown masked, as any run's.
    expect(run.inputs).toMatchObject({ token: "***", broken: false });
  });

  it("goes on with the original's inputs when given none, secret ones included", async () => {
    const failed = await failedRun();
    const reply = await rerun(failed.id, { from_step: "step 2 (set)" });
    expect(reply.status, reply.text).toBe(201);
    const run = await alice.ended((reply.body as RunSession).id);
    // The checkpoint's inputs: still broken, so it fails again at the same step.
    expect(run.state).toBe("reset");
    expect(run.data).toMatchObject({ token_length: 8, error: { step: "rows #2 › check" } });
  });

  it("can start from a top-level step by its id", async () => {
    hits.clear();
    const failed = await failedRun();
    const reply = await rerun(failed.id, { from_step: "submit", inputs: { base } });
    expect(reply.status, reply.text).toBe(201);
    const run = await alice.ended((reply.body as RunSession).id);
    expect(run.state).toBe("finish");
    expect(hits.get("/submit")).toBe(2);
  });

  it("is refused for a run that has not ended, a step without a checkpoint, and other owners", async () => {
    const queued = await alice.start("submit_then_check", { base });
    // Cancelled at once: started queued and ended without a step.
    const notEnded = await call(server.origin, "POST", `/v1/run/${queued.id}/cancel`, {
      key: alice.key,
    });
    expect(notEnded.status).toBe(200);
    const failed = await failedRun();

    const unknownStep = await rerun(failed.id, { from_step: "nowhere" });
    expect(unknownStep.status).toBe(422);
    expect(unknownStep.body).toEqual({
      detail: [
        {
          loc: ["body", "from_step"],
          msg: "Value error, no checkpoint is kept before step nowhere; this run can be rerun from: submit, step 2 (set), rows, rows #2 › check",
          type: "value_error",
        },
      ],
    });
    const cancelled = await rerun(queued.id);
    expect(cancelled.status).toBe(422);
    expect(cancelled.body).toEqual({
      detail: [
        {
          loc: ["body", "from_step"],
          msg: "Value error, the run did not fail at a step: say which step to start at",
          type: "value_error",
        },
      ],
    });
    const badInputs = await rerun(failed.id, { inputs: { broken: "maybe" } });
    expect(badInputs.status).toBe(422);
    expect(await rerun(failed.id, {}, bobKey)).toMatchObject({ status: 404 });
    expect(await rerun("run_unknown")).toMatchObject({ status: 404 });
  });
});
