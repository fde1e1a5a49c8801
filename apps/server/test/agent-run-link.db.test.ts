import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunLink, type RunLoss } from "../src/agent/run-link.js";
import { ServerLink } from "../src/agent/server-link.js";
import type { NewRunEvent } from "../src/db/repositories/run-events.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { AGENT_SKILL, AGENT_SKILL_YAML, heldClientRun } from "./support/contract-agents.js";
import { call } from "./support/http.js";

/**
 * The agent's side of a run's step log (RunLink, as its EventWriter calls it) against a real
 * server, on both databases: a batch larger than one call takes, and a call answered after the
 * run was cancelled while the try before it may have been stored.
 */

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  await server.importSkillYaml("alice", AGENT_SKILL_YAML);
});

afterAll(async () => {
  await server?.close();
});

const log = (runId: string, message: string): NewRunEvent => ({
  runId,
  at: new Date(),
  type: "log",
  level: "info",
  message,
});

async function logLines(runId: string): Promise<string[]> {
  const rows = await server.db.prisma.runEvent.findMany({
    where: { runId, type: "log" },
    orderBy: { id: "asc" },
    select: { message: true },
  });
  return rows.map((row) => row.message ?? "");
}

describe("an agent's step log over the agent endpoints", () => {
  it("sends a batch of more events than one call takes in calls of 500, in order, data with the last", async () => {
    const held = await heldClientRun(server, AGENT_SKILL);
    const link = new RunLink(
      new ServerLink(server.origin, held.key, { id: held.agentId, name: "t", version: "0.0.2" }),
      held.runId,
      () => {},
    );
    const events = Array.from({ length: 1_201 }, (_, i) => log(held.runId, `line ${i}`));
    const holder = { runId: held.runId, workerId: held.agentId };
    expect(await link.record(holder, { events, data: { seen: 1_201 } })).toBe(true);
    expect(await logLines(held.runId)).toEqual(events.map((event) => event.message));
    const run = await server.db.prisma.run.findUnique({ where: { id: held.runId } });
    expect(JSON.parse(String(run?.data))).toEqual({ seen: 1_201 });
  });

  it("does not give back for the ending events a call may have stored before the run was cancelled", async () => {
    const held = await heldClientRun(server, AGENT_SKILL);
    const losses: RunLoss[] = [];
    // The first call is stored but its answer is lost on the way back (a dropped connection);
    // the run is cancelled before the call is tried again.
    class AnswerLost extends ServerLink {
      private calls = 0;
      override async events(...args: Parameters<ServerLink["events"]>) {
        const answer = await super.events(...args);
        this.calls += 1;
        if (this.calls > 1) return answer;
        const cancelled = await call(server.origin, "POST", `/v1/run/${held.runId}/cancel`, {
          key: await server.keyFor("alice"),
        });
        expect(cancelled.status, cancelled.text).toBe(200);
        throw new Error("socket hang up");
      }
    }
    const link = new RunLink(
      new AnswerLost(server.origin, held.key, { id: held.agentId, name: "t", version: "0.0.2" }),
      held.runId,
      (loss) => losses.push(loss),
    );
    const holder = { runId: held.runId, workerId: held.agentId };
    await expect(link.record(holder, { events: [log(held.runId, "once")] })).rejects.toThrow(
      /lost while its events were sent again/,
    );
    expect(losses).toEqual(["cancel"]);
    expect(await logLines(held.runId)).toEqual(["once"]);
  });
});
