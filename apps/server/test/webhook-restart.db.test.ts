import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  startTestServer,
  TEST_VIDEO_SECRET,
  type TestServer,
} from "../src/test-support/test-server.js";
import { RunClient } from "./support/runs.js";
import { type SkillrunProcess, startServerProcess } from "./support/skillrun-process.js";
import { QUICK_SKILL } from "./support/skills.js";
import { WebhookReceiver } from "./support/webhook-receiver.js";
import { WebhookApi } from "./support/webhooks.js";

/**
 * No delivery is lost when `skillrun serve` (the built command) is killed: the delivery is written
 * with the run's ending, so a server killed before sending it, or while its receiver is down,
 * sends it once it is back, and once only. The test server beside the processes sends nothing
 * (WEBHOOK_DELIVERY=false): it is how the test registers the endpoint and reads deliveries.
 */

let server: TestServer;
let alice: string;
let runs: RunClient;
let hooks: WebhookApi;
let receiver: WebhookReceiver;
let videoDir: string;
const processes: SkillrunProcess[] = [];

beforeEach(async () => {
  server = await startTestServer({ env: { WEBHOOK_DELIVERY: "false" } });
  await server.importSkillYaml("alice", QUICK_SKILL);
  alice = await server.keyFor("alice");
  runs = new RunClient(server.origin, alice);
  hooks = new WebhookApi(server.origin, alice);
  receiver = await new WebhookReceiver().start();
  videoDir = mkdtempSync(join(tmpdir(), "skillrun-webhooks-"));
});

afterEach(async () => {
  await Promise.all(processes.splice(0).map((started) => started.stop("SIGKILL")));
  await server?.close();
  await receiver?.close();
  rmSync(videoDir, { recursive: true, force: true });
});

async function serve(env: Record<string, string> = {}): Promise<SkillrunProcess> {
  const started = await startServerProcess(server.databaseUrl, {
    VIDEO_DIR: videoDir,
    VIDEO_SIGNING_SECRET: TEST_VIDEO_SECRET,
    // The receiver listens on loopback.
    ALLOW_PRIVATE_NETWORKS: "true",
    WORKER_CONCURRENCY: "2",
    ...env,
  });
  processes.push(started);
  return started;
}

/**
 * Waits until the endpoint's delivery is marked delivered (after which nothing sends it again)
 * and checks that the receiver got it once; returns the delivery.
 */
async function expectOnlyOne(hookId: string) {
  const [delivered] = await hooks.deliveriesWhen(hookId, (list) => list[0]?.state === "delivered");
  expect(receiver.received).toHaveLength(1);
  const [received] = receiver.received;
  expect(received?.libraryVerified).toBe(true);
  expect(received?.autotabVerified).toBe(true);
  return delivered;
}

describe("webhook deliveries across a killed server", () => {
  it("sends, once, the delivery of a run that ended on a server killed before it sent it", async () => {
    const hook = await hooks.register(receiver);
    const first = await serve({ WEBHOOK_DELIVERY: "false" });
    const { id } = await runs.start("skill_quick", { n: 4 });
    expect((await runs.ended(id)).state).toBe("finish");
    // The ending and its delivery committed together; nothing was sent.
    const [pending] = await hooks.deliveriesWhen(hook.id, (list) => list.length === 1);
    expect(pending).toMatchObject({ run_id: id, state: "pending", attempts: [] });
    await first.stop("SIGKILL");

    await serve();
    const delivered = await expectOnlyOne(hook.id);
    expect(JSON.parse(receiver.received[0]?.body ?? "")).toMatchObject({ id, state: "finish" });
    expect(delivered?.id).toBe(pending?.id);
    expect(delivered?.attempts.map((a) => a.status)).toEqual([204]);
  }, 60_000);

  it("sends, once, a delivery whose receiver was down while the server was killed and restarted", async () => {
    const hook = await hooks.register(receiver);
    await receiver.close();
    const first = await serve();
    const { id } = await runs.start("skill_quick", { n: 5 });
    expect((await runs.ended(id)).state).toBe("finish");
    const [refused] = await hooks.deliveriesWhen(hook.id, (list) => list[0]?.attempts.length === 1);
    expect(refused).toMatchObject({
      state: "pending",
      attempts: [{ status: null, error: expect.stringMatching(/ECONNREFUSED/) }],
    });
    await first.stop("SIGKILL");

    await receiver.start();
    await serve();
    // The retry is due about 5 s after the refused attempt.
    await receiver.waitFor(1, 30_000);
    const delivered = await expectOnlyOne(hook.id);
    expect(delivered?.attempts.map((a) => a.status)).toEqual([null, 204]);
  }, 60_000);
});
