import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call } from "./support/http.js";
import { RunClient } from "./support/runs.js";
import { QUICK_SKILL, SLEEPY_SKILL } from "./support/skills.js";
import { WebhookReceiver } from "./support/webhook-receiver.js";
import { WebhookApi } from "./support/webhooks.js";

/**
 * Webhooks end to end, on TEST_FLAVOUR's database: endpoints registered over the API, run events
 * written to the outbox with the run's change, and the server's own delivery loop POSTing them
 * to real receivers on loopback that check both signatures.
 */

const FAILING_SKILL = `
id: skill_failing
name: Failing
steps:
  - id: refuse
    fail: "no invoices today"
`;

let server: TestServer;
let alice: string;
let runs: RunClient;
let hooks: WebhookApi;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  server = await startTestServer({
    worker: { concurrency: 4 },
    // A short schedule and timeout, so retries and timeouts happen within a test.
    webhooks: { pollMs: 50, firstRetryDelayMs: 200, timeoutMs: 1_000 },
  });
  await server.importSkillYaml("alice", QUICK_SKILL, SLEEPY_SKILL, FAILING_SKILL);
  alice = await server.keyFor("alice");
  runs = new RunClient(server.origin, alice);
  hooks = new WebhookApi(server.origin, alice);
});

afterAll(async () => {
  await server?.close();
});

afterEach(async () => {
  // Each test's endpoints go, so that the next test's runs are not sent to them.
  const listed = await call(server.origin, "GET", "/v1/webhook/list", { key: alice });
  for (const { id } of listed.body as { id: string }[]) {
    await call(server.origin, "DELETE", `/v1/webhook/${id}`, { key: alice });
  }
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function receiver(...args: ConstructorParameters<typeof WebhookReceiver>) {
  const started = await new WebhookReceiver(...args).start();
  receivers.push(started);
  return started;
}

describe("webhooks", () => {
  it("shows the secret once, and POSTs a finished run signed both ways, as the run reads", async () => {
    const hook = await receiver();
    const created = await hooks.register(hook);
    expect(created).toMatchObject({
      id: expect.stringMatching(/^wh_/),
      url: hook.url,
      events: [
        "run.finished",
        "run.failed",
        "run.cancelled",
        "run.timeout",
        "run.paused",
        "schedule.paused",
      ],
      disabled_at: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const listed = await call(server.origin, "GET", "/v1/webhook/list", { key: alice });
    expect(listed.body).toEqual([
      {
        id: created.id,
        url: hook.url,
        events: created.events,
        created_at: created.created_at,
        disabled_at: null,
        disabled_reason: null,
      },
    ]);
    expect(listed.text).not.toContain(created.secret);

    const { id } = await runs.start("skill_quick", { n: 21 });
    const [received] = await hook.waitFor(1);
    const run = await runs.get(id);
    expect(run.state).toBe("finish");
    expect(received?.headers["x-skillrun-event"]).toBe("run.finished");
    expect(received?.headers["content-type"]).toBe("application/json");
    expect(received?.libraryVerified).toBe(true);
    expect(received?.autotabVerified).toBe(true);
    expect(JSON.parse(received?.body ?? "")).toEqual({ ...run, video_url: null });

    const [delivery] = await hooks.deliveriesWhen(
      created.id,
      (list) => list[0]?.state === "delivered",
    );
    expect(delivery).toMatchObject({
      id: received?.headers["webhook-id"],
      webhook_id: created.id,
      run_id: id,
      event: "run.finished",
      next_attempt_at: null,
      // A 204 has no body to keep.
      attempts: [{ status: 204, response: null, error: null }],
    });
  });

  it("signs with the endpoint's own secret: another secret verifies neither signature", async () => {
    const hook = await receiver();
    await hooks.register(hook);
    hook.secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
    await runs.start("skill_quick", { n: 1 });
    const [received] = await hook.waitFor(1);
    expect(received?.libraryVerified).toBe(false);
    expect(received?.autotabVerified).toBe(false);
  });

  it("retries with backoff until the endpoint answers, keeping every attempt and one webhook-id", async () => {
    const hook = await receiver((n) =>
      n <= 2 ? { status: 503, body: "x".repeat(5000) } : { status: 200, body: "ok" },
    );
    const created = await hooks.register(hook);
    await runs.start("skill_failing");
    const received = await hook.waitFor(3);
    const ids = new Set(received.map((r) => r.headers["webhook-id"]));
    expect(ids.size).toBe(1);
    expect(received.every((r) => r.libraryVerified && r.autotabVerified)).toBe(true);
    expect(received.map((r) => r.headers["x-skillrun-event"])).toEqual(Array(3).fill("run.failed"));

    const [delivery] = await hooks.deliveriesWhen(
      created.id,
      (list) => list[0]?.state === "delivered",
    );
    const attempts = delivery?.attempts ?? [];
    expect(attempts.map((a) => a.status)).toEqual([503, 503, 200]);
    // The first 1 KiB of the response is kept.
    expect(attempts[0]?.response).toBe("x".repeat(1024));
    expect(attempts[2]?.response).toBe("ok");
    // 200 ms, then 400 ms, each ±20 %.
    const at = attempts.map((a) => Date.parse(a.at));
    expect((at[1] ?? 0) - (at[0] ?? 0)).toBeGreaterThanOrEqual(160);
    expect((at[2] ?? 0) - (at[1] ?? 0)).toBeGreaterThanOrEqual(320);
  });

  it("counts an endpoint that does not answer within the timeout as failed, saying so", async () => {
    const hook = await receiver((n) => (n === 1 ? { hang: true } : { status: 200 }));
    const created = await hooks.register(hook);
    await runs.start("skill_quick", { n: 2 });
    const [delivery] = await hooks.deliveriesWhen(
      created.id,
      (list) => list[0]?.state === "delivered",
    );
    expect(delivery?.attempts).toMatchObject([
      { status: null, response: null, error: "no answer within 1 s" },
      { status: 200 },
    ]);
    expect(delivery?.attempts[0]?.latency_ms).toBeGreaterThanOrEqual(1000);
  });

  it("disables an endpoint that answers 410: nothing more is written or sent to it", async () => {
    const hook = await receiver(() => ({ status: 410, body: "gone" }));
    const created = await hooks.register(hook);
    await runs.start("skill_quick", { n: 3 });
    await hook.waitFor(1);
    const [delivery] = await hooks.deliveriesWhen(
      created.id,
      (list) => list[0]?.state === "failed",
    );
    expect(delivery?.attempts).toMatchObject([{ status: 410, response: "gone" }]);
    const listed = await call(server.origin, "GET", "/v1/webhook/list", { key: alice });
    expect(listed.body).toMatchObject([
      {
        id: created.id,
        disabled_at: expect.any(String),
        disabled_reason: "the endpoint answered 410 Gone",
      },
    ]);

    const next = await runs.start("skill_quick", { n: 4 });
    await runs.ended(next.id);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(hook.received).toHaveLength(1);
    expect(await hooks.deliveries(created.id)).toHaveLength(1);
    const again = await call(
      server.origin,
      "POST",
      `/v1/webhook/${created.id}/deliveries/${delivery?.id}/redeliver`,
      { key: alice },
    );
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ detail: "Webhook is disabled: the endpoint answered 410 Gone" });
  });

  it("sends only the events an endpoint subscribed to: a cancel, not a finish", async () => {
    const hook = await receiver();
    const created = await hooks.register(hook, ["run.cancelled"]);
    const quick = await runs.start("skill_quick", { n: 5 });
    await runs.ended(quick.id);
    const sleepy = await runs.start("skill_sleepy");
    await runs.waitFor(sleepy.id, (run) => run.state === "play");
    expect(await runs.cancel(sleepy.id)).toBe("cancel");
    const [received] = await hook.waitFor(1);
    expect(received?.headers["x-skillrun-event"]).toBe("run.cancelled");
    expect(JSON.parse(received?.body ?? "")).toMatchObject({ id: sleepy.id, state: "cancel" });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hook.received).toHaveLength(1);
    expect((await hooks.deliveries(created.id)).map((d) => d.run_id)).toEqual([sleepy.id]);
  });

  it("redelivers a delivery with its body and id unchanged", async () => {
    const hook = await receiver();
    const created = await hooks.register(hook);
    await runs.start("skill_quick", { n: 6 });
    const [first] = await hook.waitFor(1);
    const [delivery] = await hooks.deliveriesWhen(
      created.id,
      (list) => list[0]?.state === "delivered",
    );
    const again = await call(
      server.origin,
      "POST",
      `/v1/webhook/${created.id}/deliveries/${delivery?.id}/redeliver`,
      { key: alice },
    );
    expect(again.status, again.text).toBe(202);
    expect(again.body).toMatchObject({ id: delivery?.id, state: "pending" });
    const [, second] = await hook.waitFor(2);
    expect(second?.headers["webhook-id"]).toBe(first?.headers["webhook-id"]);
    expect(second?.body).toBe(first?.body);
    expect(second?.libraryVerified && second.autotabVerified).toBe(true);
    const [after] = await hooks.deliveriesWhen(
      created.id,
      (list) => list[0]?.state === "delivered" && list[0].attempts.length === 2,
    );
    expect(after?.attempts.map((a) => a.status)).toEqual([204, 204]);
  });

  it("keeps owners apart: another owner's endpoint is not found, nor told of these runs", async () => {
    const hook = await receiver();
    const created = await hooks.register(hook);
    const bob = await server.keyFor("bob");
    for (const [method, path] of [
      ["DELETE", `/v1/webhook/${created.id}`],
      ["GET", `/v1/webhook/${created.id}/deliveries`],
      ["POST", `/v1/webhook/${created.id}/deliveries/msg_x/redeliver`],
    ] as const) {
      const reply = await call(server.origin, method, path, { key: bob });
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({ detail: "Webhook not found" });
    }
    expect((await call(server.origin, "GET", "/v1/webhook/list", { key: bob })).body).toEqual([]);
  });
});

describe("registering an endpoint", () => {
  let guarded: TestServer;
  let key: string;

  beforeAll(async () => {
    guarded = await startTestServer({ allowPrivateNetworks: false });
    key = await guarded.keyFor("alice");
  });
  afterAll(async () => {
    await guarded?.close();
  });

  const post = (json: unknown) => call(guarded.origin, "POST", "/v1/webhook", { key, json });

  it("refuses what the network rules of http steps refuse, and what is not http(s), at body.url", async () => {
    const cases: [string, RegExp][] = [
      ["http://127.0.0.1:8080/hook", /^Value error, 127\.0\.0\.1 is a loopback address/],
      ["http://169.254.169.254/latest", /^Value error, 169\.254\.169\.254 is .*metadata/],
      ["http://10.1.2.3/hook", /^Value error, 10\.1\.2\.3 is a private/],
      ["http://localhost:9/hook", /^Value error, localhost /],
      ["ftp://example.com/hook", /^Value error, ftp: is not http or https$/],
      ["not a url", /^Value error, not an absolute URL$/],
    ];
    for (const [url, message] of cases) {
      const reply = await post({ url });
      expect(reply.status, url).toBe(422);
      const [issue] = (reply.body as { detail: { loc: string[]; msg: string }[] }).detail;
      expect(issue?.loc, url).toEqual(["body", "url"]);
      expect(issue?.msg, url).toMatch(message);
    }
    expect((await call(guarded.origin, "GET", "/v1/webhook/list", { key })).body).toEqual([]);
  });

  it("refuses unknown events, repeated events and unknown fields", async () => {
    for (const json of [
      { url: "https://1.1.1.1/h", events: ["run.exploded"] },
      { url: "https://1.1.1.1/h", events: ["run.failed", "run.failed"] },
      { url: "https://1.1.1.1/h", events: [] },
      { url: "https://1.1.1.1/h", secret: "mine" },
      { url: `https://1.1.1.1/${"x".repeat(2100)}` },
    ]) {
      expect((await post(json)).status, JSON.stringify(json).slice(0, 80)).toBe(422);
    }
  });

  it("allows at most 20 endpoints per owner", async () => {
    for (let i = 0; i < 20; i++) {
      expect((await post({ url: `https://1.1.1.1/hook/${i}` })).status).toBe(201);
    }
    const reply = await post({ url: "https://1.1.1.1/hook/21" });
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({
      detail: [
        {
          loc: ["body", "url"],
          msg: "Value error, an owner has at most 20 webhook endpoints; delete one first",
          type: "value_error",
        },
      ],
    });
  });
});
