import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError, WaitTimeoutError } from "./errors.js";
import { isTerminalState } from "./run-states.js";
import {
  clientFor,
  noopSkill,
  recordingFetch,
  startRun,
  startTestServer,
  type TestServer,
} from "./test-support/fixtures.js";
import { waitForRun } from "./wait-for-run.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

/** A client for a fresh owner, a queued run of it, and the requests the client sends. */
async function queuedRun(owner: string) {
  const recorder = recordingFetch();
  const client = await clientFor(server, owner, { skills: [noopSkill], fetch: recorder.fetch });
  const id = await startRun(client, noopSkill.id);
  recorder.requests.length = 0;
  const polls = () => recorder.requests.filter(({ url }) => url.pathname === `/v1/run/${id}`);
  return { client, id, polls };
}

/** The rejection of `promise` (fails the test when it resolves) and how long it took. */
// Takes the call, not its promise, so the clock starts before the call sets its own deadline.
async function rejectionOf(call: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  try {
    await call();
  } catch (error) {
    return { error, ms: performance.now() - started };
  }
  throw new Error("expected a rejection");
}

describe("waitForRun", () => {
  it("resolves with the run once it is cancelled while waiting", async () => {
    const { client, id, polls } = await queuedRun("wait-cancel");
    const started = performance.now();
    setTimeout(() => {
      void client.POST("/run/{id}/cancel", { params: { path: { id } } });
    }, 300);

    const run = await waitForRun(client, id, { timeoutMs: 5000 });

    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
    expect(run).toMatchObject({ id, state: "cancel", end_time: expect.any(String) });
    expect(polls().length).toBeGreaterThanOrEqual(2);
  });

  it("resolves after one read for a run that is already terminal", async () => {
    const { client, id, polls } = await queuedRun("wait-terminal");
    await server.repos.runs.cancel("wait-terminal", id);

    const run = await waitForRun(client, id, { timeoutMs: 5000 });

    expect(run).toMatchObject({ id, state: "cancel" });
    expect(polls()).toHaveLength(1);
  });

  it("rejects with WaitTimeoutError naming the run and its last state when it stays queued", async () => {
    const { client, id, polls } = await queuedRun("wait-timeout");

    const { error, ms } = await rejectionOf(() => waitForRun(client, id, { timeoutMs: 600 }));

    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(error).toMatchObject({ name: "WaitTimeoutError", runId: id, lastState: null });
    expect((error as Error).message).toBe(
      `Run ${id} did not end within 600 ms (last state: queued)`,
    );
    expect(ms).toBeGreaterThanOrEqual(590);
    expect(ms).toBeLessThan(1500);
    // Default pauses of 250 ms then 375 ms: a few reads, never a busy loop.
    expect(polls().length).toBeGreaterThanOrEqual(2);
    expect(polls().length).toBeLessThanOrEqual(4);
  });

  it("lengthens the pause between reads from intervalMs up to maxIntervalMs", async () => {
    const { client, id, polls } = await queuedRun("wait-backoff");

    await rejectionOf(() =>
      waitForRun(client, id, { timeoutMs: 4000, intervalMs: 100, maxIntervalMs: 200 }),
    );

    // Each pause, from one read's answer to the next read, so a slow server does not count.
    const reads = polls();
    const gaps = reads.slice(1).map((read, i) => read.at - (reads[i]?.answeredAt ?? Number.NaN));
    // Pauses of 100, 150, then 200 ms: a timer never fires early, so the lower bounds are
    // exact; a busy machine may fire one late, so the cap is judged by the typical pause.
    expect(gaps.length).toBeGreaterThanOrEqual(6);
    expect(gaps[0]).toBeGreaterThanOrEqual(95);
    expect(gaps[1]).toBeGreaterThanOrEqual(145);
    for (const gap of gaps.slice(2)) expect(gap).toBeGreaterThanOrEqual(195);
    // Uncapped, the fifth pause and every later one would be 100 × 1.5⁴ ≈ 506 ms or more.
    const later = gaps.slice(4).sort((a, b) => a - b);
    const median = later[Math.floor(later.length / 2)] ?? Number.NaN;
    expect(median).toBeLessThan(400);
  });

  it("rejects with the signal's reason as soon as it aborts, even mid-pause", async () => {
    const { client, id, polls } = await queuedRun("wait-abort");
    const controller = new AbortController();
    const reason = new Error("user gave up");
    setTimeout(() => controller.abort(reason), 200);

    const { error, ms } = await rejectionOf(() =>
      waitForRun(client, id, { timeoutMs: 10_000, intervalMs: 5000, signal: controller.signal }),
    );

    expect(error).toBe(reason);
    expect(ms).toBeLessThan(1000);
    expect(polls()).toHaveLength(1);
  });

  it("rejects at once, without a request, when the signal has already aborted", async () => {
    const { client, id, polls } = await queuedRun("wait-aborted");
    const reason = new Error("too late");

    const { error } = await rejectionOf(() =>
      waitForRun(client, id, { timeoutMs: 5000, signal: AbortSignal.abort(reason) }),
    );

    expect(error).toBe(reason);
    expect(polls()).toHaveLength(0);
  });

  it("rejects with an ApiError carrying the status and detail for an unknown run", async () => {
    const client = await clientFor(server, "wait-unknown");

    const { error } = await rejectionOf(() =>
      waitForRun(client, "run_missing", { timeoutMs: 5000 }),
    );

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      name: "ApiError",
      status: 404,
      detail: "Run not found",
      body: { detail: "Run not found" },
      message: "404 from /v1/run/run_missing: Run not found",
    });
  });

  it("refuses a pause that would make it busy-loop", async () => {
    const client = await clientFor(server, "wait-interval");
    await expect(waitForRun(client, "run_x", { timeoutMs: 100, intervalMs: 0 })).rejects.toThrow(
      RangeError,
    );
  });
});

describe("isTerminalState", () => {
  it("is true exactly for finish, reset, cancel and timeout", () => {
    const states = [
      null,
      undefined,
      "play",
      "pause",
      "editing",
      "finish",
      "reset",
      "cancel",
      "timeout",
    ] as const;
    expect(states.filter(isTerminalState)).toEqual(["finish", "reset", "cancel", "timeout"]);
  });
});
