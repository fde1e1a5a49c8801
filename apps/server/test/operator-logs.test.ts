import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call } from "./support/http.js";
import { loggedLines } from "./support/log-lines.js";
import { RunClient } from "./support/runs.js";
import { QUICK_SKILL, SLEEPY_SKILL } from "./support/skills.js";
import { WebhookReceiver } from "./support/webhook-receiver.js";

/**
 * The lines an operator follows runs by: one when a run starts, one when it ends, and one per
 * webhook attempt, in JSON.
 */

const FAILING = `
id: skill_failing
name: Failing
steps:
  - id: check
    fail: "the order was refused"
`;

let server: TestServer;
let client: RunClient;
let key: string;
const { logger, lines } = loggedLines();

beforeAll(async () => {
  server = await startTestServer({
    worker: { concurrency: 2 },
    logger,
  });
  await server.importSkillYaml("alice", QUICK_SKILL, SLEEPY_SKILL, FAILING);
  key = await server.keyFor("alice");
  client = new RunClient(server.origin, key);
});

afterAll(async () => {
  await server?.close();
});

const about = (runId: string) => lines.filter((line) => line.runId === runId);

/** The run's "run ended" line, once its worker has written it (just after the ending). */
async function endedLine(runId: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const line = about(runId).find((entry) => String(entry.msg).startsWith("run ended"));
    if (line !== undefined) return line;
    if (Date.now() > deadline) throw new Error(JSON.stringify(about(runId)));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("the server's log of runs", () => {
  it("says when a run started and how it ended, with its id, skill, state and duration", async () => {
    const { id } = await client.start("skill_quick", { n: 2 });
    expect((await client.ended(id)).state).toBe("finish");
    const ended = await endedLine(id);
    const [started] = about(id);
    expect(started).toMatchObject({
      level: 30,
      runId: id,
      skillId: "skill_quick",
      attempt: 1,
      worker: expect.any(String),
      msg: "run started: skill_quick, attempt 1",
    });
    expect(ended).toMatchObject({
      level: 30,
      runId: id,
      skillId: "skill_quick",
      state: "finish",
      durationMs: expect.any(Number),
      msg: expect.stringMatching(/^run ended: finish after \d+\.\d s$/),
    });
  });

  it("logs a failure as a warning with where and why", async () => {
    const { id } = await client.start("skill_failing");
    expect((await client.ended(id)).state).toBe("reset");
    expect(await endedLine(id)).toMatchObject({
      level: 40,
      state: "reset",
      error: { step: "check", message: "the order was refused" },
    });
  });

  it("logs a cancelled run's end once its worker has stopped it", async () => {
    const { id } = await client.start("skill_sleepy");
    await client.waitFor(id, (run) => run.state === "play");
    expect(await client.cancel(id)).toBe("cancel");
    expect(await endedLine(id)).toMatchObject({
      level: 30,
      state: "cancel",
      msg: expect.stringMatching(/^run ended: cancel after/),
    });
  });

  it("logs each webhook attempt's outcome, never the secret or a signature", async () => {
    const receiver = await new WebhookReceiver((n) =>
      n === 1 ? { status: 500, body: "try later" } : { status: 200 },
    ).start();
    try {
      const reply = await call(server.origin, "POST", "/v1/webhook", {
        key,
        json: { url: receiver.url, events: ["run.failed"] },
      });
      const { id: webhookId, secret } = reply.body as { id: string; secret: string };
      const { id } = await client.start("skill_failing");
      // The first attempt fails; the retry (about 5 s later) succeeds.
      await receiver.waitFor(2, 20_000);
      const deadline = Date.now() + 5_000;
      const outcomes = () => about(id).filter((line) => line.webhookId === webhookId);
      while (outcomes().length < 2 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(outcomes()).toMatchObject([
        {
          level: 40,
          event: "run.failed",
          attempt: 1,
          status: 500,
          outcome: "pending",
          nextAttemptAt: expect.any(String),
          msg: "webhook attempt failed; will retry",
        },
        { level: 30, attempt: 2, status: 200, outcome: "delivered", msg: "webhook delivered" },
      ]);
      const logged = JSON.stringify(lines);
      expect(logged).not.toContain(secret);
      for (const received of receiver.received) {
        expect(logged).not.toContain(String(received.headers["autotab-signature"]));
        expect(logged).not.toContain(String(received.headers["webhook-signature"]).slice(3));
      }
    } finally {
      await receiver.close();
    }
  }, 30_000);
});
