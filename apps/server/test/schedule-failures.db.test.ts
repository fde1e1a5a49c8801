import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call } from "./support/http.js";
import { newSchedule } from "./support/schedules.js";

/**
 * A schedule pauses itself after `pause_after_failures` of its runs in a row end failed, in the
 * transaction of the ending that makes it so (the worker's), and endpoints subscribed to
 * `schedule.paused` get a delivery of it; a run that finishes counts the failures afresh.
 */

const SKILL = `
id: skill_fetch
name: Fetch
inputs:
  - { json_key: url, data_type: string }
steps:
  - http: { url: "{{ inputs.url }}" }
`;
// Nothing listens on the discard port: the step fails, and the run ends in reset.
const REFUSED = "http://127.0.0.1:9/";

let server: TestServer;
let receiver: Server;
let answering: string;
let key: string;

beforeAll(async () => {
  receiver = createServer((_request, response) => response.end("ok"));
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  answering = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
  server = await startTestServer({ worker: { concurrency: 1 } });
  key = await server.keyFor("alice");
  await server.importSkillYaml("alice", SKILL);
});

afterAll(async () => {
  await server?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

/** Triggers a run of the schedule and waits for it to end; returns its id and state. */
async function runOnce(id: string): Promise<{ id: string; state: string }> {
  const triggered = await call(server.origin, "POST", `/v1/schedule/${id}/trigger`, { key });
  expect(triggered.status, triggered.text).toBe(201);
  const runId = (triggered.body as { id: string }).id;
  let state: string | null = null;
  await expect
    .poll(
      async () => {
        const run = await call(server.origin, "GET", `/v1/run/${runId}`, { key });
        state = (run.body as { state: string | null }).state;
        return state === "finish" || state === "reset";
      },
      { timeout: 30_000, interval: 100 },
    )
    .toBe(true);
  return { id: runId, state: state as unknown as string };
}

async function scheduleOf(id: string): Promise<Record<string, unknown>> {
  return (await call(server.origin, "GET", `/v1/schedule/${id}`, { key })).body as Record<
    string,
    unknown
  >;
}

it("pauses itself after failed runs in a row, and tells schedule.paused endpoints", async () => {
  const hook = await server.repos.webhooks.create("alice", "http://127.0.0.1:9/hook", [
    "schedule.paused",
  ]);
  const id = await newSchedule(server, key, {
    skill_id: "skill_fetch",
    cron: "0 0 1 1 *",
    inputs: { url: REFUSED },
    pause_after_failures: 2,
  });
  expect((await runOnce(id)).state).toBe("reset");
  expect(await scheduleOf(id)).toMatchObject({ failures_in_row: 1, paused: false });

  const patch = (inputs: Record<string, unknown>) =>
    call(server.origin, "PATCH", `/v1/schedule/${id}`, { key, json: { inputs } });
  await patch({ url: answering });
  expect((await runOnce(id)).state).toBe("finish");
  expect(await scheduleOf(id)).toMatchObject({ failures_in_row: 0, paused: false });

  await patch({ url: REFUSED });
  expect((await runOnce(id)).state).toBe("reset");
  const last = await runOnce(id);
  expect(last.state).toBe("reset");
  expect(await scheduleOf(id)).toMatchObject({
    failures_in_row: 2,
    paused: true,
    paused_reason: "failures",
  });
  const deliveries = await server.db.prisma.webhookDelivery.findMany({
    where: { webhookId: hook?.id ?? "" },
  });
  expect(deliveries).toHaveLength(1);
  expect(deliveries[0]).toMatchObject({ event: "schedule.paused", runId: last.id });
  expect(JSON.parse(deliveries[0]?.body ?? "{}")).toMatchObject({
    id,
    paused: true,
    paused_reason: "failures",
    inputs: { url: REFUSED },
  });

  // Resumed, it counts afresh: one more failure does not pause it again.
  await call(server.origin, "PATCH", `/v1/schedule/${id}`, { key, json: { paused: false } });
  expect((await runOnce(id)).state).toBe("reset");
  expect(await scheduleOf(id)).toMatchObject({ failures_in_row: 1, paused: false });
}, 120_000);
