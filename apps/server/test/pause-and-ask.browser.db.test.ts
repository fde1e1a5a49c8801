import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent } from "../src/domain/api-types.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call } from "./support/http.js";
import { RunClient, typesOf } from "./support/runs.js";

// Pause and ask through the API and the in-process worker (TEST_FLAVOUR picks the database): an
// ask pauses the run until a client answers, POST /pause pauses it before its next step, and
// the paused run keeps its browser, stops its time limit and can still be cancelled.

const ASK_CODE = `
id: skill_ask_code
name: Ask for a code
timeout: 3s
inputs:
  - { json_key: phone, data_type: string, secret: true }
steps:
  - set: { before: 1 }
  - id: code
    ask:
      prompt: "The code sent to {{ inputs.phone }}"
      schema:
        type: object
        required: [code]
        additionalProperties: false
        properties:
          code: { type: string, minLength: 6, maxLength: 6 }
          remember: { type: boolean }
      save_as: vars.answer
  - set: { code: "{{ vars.answer.code }}", echoed: "{{ steps.code }}" }
`;

// ASK_CODE's time limit without a pause: when it has timed out, so would ASK_CODE's have.
const OUTLASTS = `
id: skill_outlasts
name: Outlasts its time limit
timeout: 3s
steps:
  - wait: 30s
`;

const IMPATIENT = `
id: skill_impatient
name: Impatient
steps:
  - id: approve
    ask: { prompt: Approve?, timeout: 1s }
  - set: { never: true }
`;

const STEPS = `
id: skill_steps
name: Steps
steps:
  - id: first
    wait: 600ms
  - id: second
    set: { second: true }
  - id: third
    wait: 300ms
  - set: { done: true }
`;

const IN_BROWSER = `
id: skill_ask_in_browser
name: Ask in the browser
inputs:
  - { json_key: shop_url, data_type: string }
steps:
  - goto: "{{ inputs.shop_url }}"
  - fill: { selector: "#name", value: Grace }
  - id: who
    ask: { prompt: Who else?, schema: { type: string }, save_as: vars.other }
  - id: kept
    evaluate: "document.querySelector('#name').value"
  - fill: { selector: "#name", value: "{{ vars.other }}" }
  - evaluate: { expression: "document.querySelector('#name').value", save_as: now }
  - set: { kept: "{{ steps.kept }}" }
`;

const GIVES_UP = `
id: skill_gives_up
name: Gives up
steps:
  - id: q
    timeout: 1s
    optional: true
    retry: { attempts: 2 }
    ask: { prompt: Anyone?, timeout: 1m }
  - set: { got: "{{ steps.q }}" }
`;

const PRICED = `
id: skill_priced
name: Priced
steps:
  - id: price
    ask:
      prompt: "{{ $pad('Price? ', 5000, 'x') }}"
      schema: { type: number, multipleOf: 0.01 }
      save_as: price
`;

const ANYTHING = `
id: skill_anything
name: Anything
steps:
  - ask: { prompt: Anything?, save_as: answer, timeout: 2s }
`;

let server: TestServer;
let alice: RunClient;

beforeAll(async () => {
  // A short lease, so that a run paused for seconds shows that its worker keeps renewing it;
  // not much shorter, or a renewal late on a loaded machine lets the run look lost.
  server = await startTestServer({ worker: { concurrency: 2, leaseMs: 1_500 } });
  await server.importSkillYaml("alice", ASK_CODE, IMPATIENT, STEPS, IN_BROWSER);
  await server.importSkillYaml("alice", GIVES_UP, PRICED, ANYTHING, OUTLASTS);
  alice = new RunClient(server.origin, await server.keyFor("alice"));
}, 60_000);

afterAll(() => server?.close());

function post(path: string, json?: unknown) {
  return call(server.origin, "POST", path, {
    key: alice.key,
    ...(json === undefined ? {} : { json }),
  });
}

async function pausedEvent(runId: string): Promise<RunEvent> {
  const run = await alice.waitFor(runId, (r) => r.state === "pause");
  expect(run.state).toBe("pause");
  const paused = (await alice.events(runId)).filter((event) => event.type === "run_paused");
  expect(paused).toHaveLength(1);
  return paused[0] as RunEvent;
}

/** When the run's lease runs out, in milliseconds since the epoch (0 when it has none). */
async function leaseExpiresAt(runId: string): Promise<number> {
  const run = await server.db.prisma.run.findUniqueOrThrow({
    where: { id: runId },
    select: { leaseExpiresAt: true },
  });
  return run.leaseExpiresAt?.getTime() ?? 0;
}

/** The run's events once one of `type` is among them. */
async function eventsUntil(runId: string, type: string): Promise<RunEvent[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const events = await alice.events(runId);
    if (events.some((event) => event.type === type) || Date.now() > deadline) return events;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("ask", () => {
  it("pauses with its prompt and schema, refuses an answer that does not fit, and goes on with one that does", async () => {
    const phone = "+44 7700 900123";
    const { id } = await alice.start("skill_ask_code", { phone });
    const twin = await alice.start("skill_outlasts");
    const paused = await pausedEvent(id);

    expect(paused.step).toMatchObject({ id: "code", kind: "ask", label: "code" });
    expect(paused.message).toMatch(/^waiting for an answer until \S+: The code sent to \*\*\*$/);
    expect(paused.data).toMatchObject({
      reason: "ask",
      prompt: "The code sent to ***",
      schema: { type: "object", required: ["code"] },
    });
    expect(JSON.stringify(await alice.events(id))).not.toContain(phone);

    const wrong = await post(`/v1/run/${id}/resume`, { input: { code: "12", extra: 1 } });
    expect(wrong.status, wrong.text).toBe(422);
    expect(wrong.body).toEqual({
      detail: [
        {
          loc: ["body", "input", "extra"],
          msg: "Value error, unexpected property",
          type: "value_error",
        },
        {
          loc: ["body", "input", "code"],
          msg: "Value error, must NOT have fewer than 6 characters",
          type: "value_error",
        },
      ],
    });
    const missing = await post(`/v1/run/${id}/resume`, {});
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({
      detail: [{ loc: ["body", "input"], msg: "Field required", type: "missing" }],
    });
    const noCode = await post(`/v1/run/${id}/resume`, { input: { remember: true } });
    expect(noCode.body).toEqual({
      detail: [{ loc: ["body", "input", "code"], msg: "Field required", type: "missing" }],
    });
    // Refused answers leave it paused; the skill's 3 s time limit stops meanwhile: its twin,
    // started after it with the same limit and no pause, has timed out.
    expect((await alice.ended(twin.id)).state).toBe("timeout");
    expect((await alice.get(id)).state).toBe("pause");

    const right = await post(`/v1/run/${id}/resume`, { input: { code: "123456" } });
    expect(right.status, right.text).toBe(200);
    expect(right.body).toBe("play");
    const ended = await alice.ended(id);
    expect(ended.state).toBe("finish");
    expect(ended.data).toEqual({ before: 1, code: "123456", echoed: { code: "123456" } });
    const types = typesOf(await alice.events(id));
    // Paused for more than two leases, the run never looked lost.
    expect(types).not.toContain("worker_lost");
    expect(types.filter((type) => type === "run_claimed")).toHaveLength(1);
    expect(types.slice(types.indexOf("run_paused"), types.indexOf("run_paused") + 3)).toEqual([
      "run_paused",
      "run_resumed",
      "step_finished",
    ]);
    // Answered once: a second resume finds it running, or ended.
    expect((await post(`/v1/run/${id}/resume`, { input: { code: "654321" } })).status).toBe(409);
  }, 30_000);

  it("ends the run in timeout naming the step when nobody answers in time", async () => {
    const { id } = await alice.start("skill_impatient");
    const ended = await alice.ended(id);

    expect(ended.state).toBe("timeout");
    expect(ended.data).toEqual({
      error: { step: "approve", message: "no answer to step approve within 1s" },
    });
    expect(typesOf(await alice.events(id)).slice(-2)).toEqual(["run_paused", "run_timed_out"]);
  }, 20_000);

  it("is cancelled while paused", async () => {
    const { id } = await alice.start("skill_ask_code", { phone: "1" });
    await pausedEvent(id);

    expect(await alice.cancel(id)).toBe("cancel");
    const events = await eventsUntil(id, "run_cancelled");
    expect(typesOf(events)).not.toContain("run_resumed");
    const resumed = await post(`/v1/run/${id}/resume`, { input: { code: "123456" } });
    expect(resumed.status).toBe(409);
    expect(resumed.body).toEqual({ detail: "Run is not paused: it is in state cancel" });
  }, 20_000);

  it("keeps the browser open while it waits: the page is as it was left", async () => {
    const { id } = await alice.start("skill_ask_in_browser", {
      shop_url: `${server.origin}/demo/`,
    });
    await pausedEvent(id);
    // Its worker renews its lease while it waits with the browser open.
    const leaseAt = await leaseExpiresAt(id);
    await expect.poll(() => leaseExpiresAt(id), { timeout: 10_000 }).toBeGreaterThan(leaseAt);

    expect((await post(`/v1/run/${id}/resume`, { input: 42 })).status).toBe(422);
    expect((await post(`/v1/run/${id}/resume`, { input: "Ada" })).status).toBe(200);
    const ended = await alice.ended(id, 30_000);
    expect(ended.state, JSON.stringify(ended.data)).toBe("finish");
    expect(ended.data).toEqual({ now: "Ada", kept: "Grace" });
  }, 60_000);
});

describe("ask, at its limits", () => {
  it("whose step's own timeout runs out goes on (optional, retried), back in play each time", async () => {
    const { id } = await alice.start("skill_gives_up");
    const ended = await alice.ended(id, 20_000);

    expect(ended.state).toBe("finish");
    expect(ended.data).toEqual({ got: { error: "step timed out after 1s" } });
    const events = await alice.events(id);
    expect(typesOf(events).filter((t) => t === "run_paused")).toHaveLength(2);
    const resumed = events.filter((e) => e.type === "run_resumed");
    expect(resumed.map((e) => e.message)).toEqual([
      "the step waiting for an answer ran out of time; the run goes on without one",
      "the step waiting for an answer ran out of time; the run goes on without one",
    ]);
  }, 30_000);

  it("cuts a rendered prompt to 2,000 characters, and takes 19.99 as a multiple of 0.01", async () => {
    const { id } = await alice.start("skill_priced");
    const paused = await pausedEvent(id);
    const prompt = (paused.data as { prompt: string }).prompt;
    expect(prompt).toHaveLength(2000);
    expect(prompt.endsWith("x…")).toBe(true);

    expect((await post(`/v1/run/${id}/resume`, { input: 19.999 })).status).toBe(422);
    const right = await post(`/v1/run/${id}/resume`, { input: 19.99 });
    expect(right.status, right.text).toBe(200);
    expect((await alice.ended(id)).data).toEqual({ price: 19.99 });
  }, 20_000);

  it("refuses an answer nested too deep, and any answer once its time ran out", async () => {
    const { id } = await alice.start("skill_anything");
    await pausedEvent(id);
    const deep = await post(`/v1/run/${id}/resume`, {
      input: JSON.parse(`${"[".repeat(3000)}${"]".repeat(3000)}`),
    });
    expect([deep.status, deep.body]).toEqual([
      422,
      {
        detail: [
          {
            loc: ["body", "input"],
            msg: "Value error, the answer must not be nested more than 32 levels deep",
            type: "value_error",
          },
        ],
      },
    ]);
    await alice.waitFor(id, (run) => run.state === "timeout");
    const late = await post(`/v1/run/${id}/resume`, { input: 1 });
    expect([late.status, late.body]).toEqual([
      409,
      { detail: "Run is not paused: it is in state timeout" },
    ]);
  }, 20_000);
});

describe("POST /run/{id}/pause", () => {
  it("pauses before the next step, is harmless twice, and resume without input goes on", async () => {
    const { id } = await alice.start("skill_steps");
    await alice.waitFor(id, (run) => run.state === "play");

    const asked = await post(`/v1/run/${id}/pause`);
    expect(asked.status, asked.text).toBe(202);
    expect(asked.body).toBe("play");
    const paused = await pausedEvent(id);
    // The wait under way finished first.
    expect(paused.step).toMatchObject({ id: "second" });
    expect(paused.data).toMatchObject({ reason: "requested" });
    const again = await post(`/v1/run/${id}/pause`);
    expect([again.status, again.body]).toEqual([200, "pause"]);

    const withInput = await post(`/v1/run/${id}/resume`, { input: "x" });
    expect(withInput.status).toBe(422);
    expect(withInput.body).toEqual({
      detail: [
        {
          loc: ["body", "input"],
          msg: "Value error, the run paused because a client asked, not at an ask step: resume it without input",
          type: "value_error",
        },
      ],
    });
    const resumed = await post(`/v1/run/${id}/resume`);
    expect([resumed.status, resumed.body]).toEqual([200, "play"]);
    const ended = await alice.ended(id);
    expect(ended.state).toBe("finish");
    expect(ended.data).toEqual({ second: true, done: true });
    const types = typesOf(await alice.events(id));
    expect(types.filter((type) => type === "run_paused")).toHaveLength(1);
    expect(types.filter((type) => type === "step_finished")).toHaveLength(4);
  }, 20_000);

  it("is called off by a resume before the run reaches its next step", async () => {
    const { id } = await alice.start("skill_steps");
    await alice.waitFor(id, (run) => run.state === "play");

    expect((await post(`/v1/run/${id}/pause`)).status).toBe(202);
    expect((await post(`/v1/run/${id}/resume`)).status).toBe(200);
    const ended = await alice.ended(id);
    expect(ended.state).toBe("finish");
    expect(typesOf(await alice.events(id))).not.toContain("run_paused");
  }, 20_000);

  it("answers 409 for a queued or ended run, 404 for another owner's, and resume 409 for a running one", async () => {
    const { id } = await alice.start("skill_steps");
    await alice.waitFor(id, (run) => run.state === "play");
    const running = await post(`/v1/run/${id}/resume`);
    expect([running.status, running.body]).toEqual([
      409,
      { detail: "Run is not paused: it is running" },
    ]);
    await alice.ended(id);
    const ended = await post(`/v1/run/${id}/pause`);
    expect([ended.status, ended.body]).toEqual([
      409,
      { detail: "Run cannot be paused: it is in state finish" },
    ]);

    const bob = await server.keyFor("bob");
    const other = await call(server.origin, "POST", `/v1/run/${id}/pause`, { key: bob });
    expect([other.status, other.body]).toEqual([404, { detail: "Run not found" }]);
    const unknown = await post("/v1/run/run_nope/resume", { input: 1 });
    expect(unknown.status).toBe(404);
    const extra = await post(`/v1/run/${id}/resume`, { input: 1, more: 2 });
    expect(extra.status).toBe(422);
  }, 20_000);
});

describe("a queued run", () => {
  let idle: TestServer;
  afterAll(() => idle?.close());

  beforeAll(async () => {
    idle = await startTestServer();
    await idle.importSkillYaml("alice", STEPS);
  });

  it("cannot be paused or resumed", async () => {
    const client = new RunClient(idle.origin, await idle.keyFor("alice"));
    const { id } = await client.start("skill_steps");

    const paused = await call(idle.origin, "POST", `/v1/run/${id}/pause`, { key: client.key });
    expect([paused.status, paused.body]).toEqual([
      409,
      { detail: "Run cannot be paused: it is queued, waiting for a worker" },
    ]);
    const resumed = await call(idle.origin, "POST", `/v1/run/${id}/resume`, { key: client.key });
    expect(resumed.status).toBe(409);
    // Out of the queue, for the claim below.
    await client.cancel(id);
  });

  it("once claimed, pauses at a client's request only while the request stands", async () => {
    const { runExecution, runPauses } = idle.repos;
    const client = new RunClient(idle.origin, await idle.keyFor("alice"));
    const { id } = await client.start("skill_steps");
    expect((await runExecution.claim("worker_test", 30_000))?.id).toBe(id);
    const holder = { runId: id, workerId: "worker_test" };
    const requested = {
      reason: "requested" as const,
      step: "second",
      expires_at: "2099-01-01T00:00:00.000Z",
    };
    const event = { runId: id, at: new Date(), type: "run_paused" as const };

    // Asked, then called off by a resume before the engine reached the step.
    expect(await runPauses.requestPause("alice", id)).toEqual({ outcome: "pausing" });
    expect(await runPauses.resume("alice", id, { given: false })).toEqual({
      outcome: "pause_called_off",
    });
    expect(await runExecution.pause(holder, requested, event)).toBe("called_off");
    expect((await client.get(id)).state).toBe("play");

    expect(await runPauses.requestPause("alice", id)).toEqual({ outcome: "pausing" });
    expect(await runExecution.pause(holder, requested, event)).toBe("paused");
    expect((await client.get(id)).state).toBe("pause");
    await client.cancel(id);
    expect(await runExecution.pause(holder, requested, event)).toBe("not_held");
  });
});
