import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSkillDefinition } from "../definition/parse.js";
import { LOCAL_TEST_NETWORK } from "../network/test-support/local-network.js";
import { executeSkill } from "./execute-skill.js";
import type { EngineEvent, StepRef } from "./types.js";

// A run's supplier is told before a step that may have effects begins (each one by default, the
// first under `on_worker_loss: reset`), and that step waits for it: what a server needs to never
// run such a step again after losing its worker.

let server: Server;
let base: string;
/** What the server was asked, in order, with what had been recorded by then. */
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`);
    response.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function execute(body: string, beforeEffects: (step: StepRef) => Promise<void>) {
  seen.length = 0;
  const events: EngineEvent[] = [];
  const definition = parseSkillDefinition(`id: s\nname: s\n${body}`, "s.yaml");
  const result = await executeSkill({
    definition,
    inputs: {},
    run: { id: "run_1", skill_id: "s" },
    signal: new AbortController().signal,
    onEvent: (event) => events.push(event),
    network: LOCAL_TEST_NETWORK,
    beforeEffects,
  });
  return { result, events };
}

describe("beforeEffects", () => {
  it("is awaited once under on_worker_loss: reset, before the first request that may change something is sent", async () => {
    const asked: string[] = [];
    const { result } = await execute(
      `on_worker_loss: reset
steps:
  - http: { url: "${base}/read" }
  - http: { url: "${base}/head", method: HEAD }
  - id: submit
    http: { url: "${base}/submit", method: POST, json: { a: 1 } }
  - http: { url: "${base}/again", method: DELETE }
`,
      async (step) => {
        // Sent requests so far, when the supplier is asked: the POST must not be among them.
        asked.push(`${step.label} after ${seen.join(", ")}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      },
    );
    expect(result.outcome).toBe("finished");
    expect(asked).toEqual([`submit after GET /read, HEAD /head`]);
    expect(seen).toEqual(["GET /read", "HEAD /head", "POST /submit", "DELETE /again"]);
  });

  it("is awaited before every such request by default (resume), each after the one before", async () => {
    const asked: string[] = [];
    const { result } = await execute(
      `steps:
  - http: { url: "${base}/read" }
  - id: submit
    http: { url: "${base}/submit", method: POST, json: { a: 1 } }
  - http: { url: "${base}/again", method: DELETE }
`,
      async (step) => {
        asked.push(`${step.label} after ${seen.join(", ")}`);
      },
    );
    expect(result.outcome).toBe("finished");
    expect(asked).toEqual([
      "submit after GET /read",
      "step 3 (http) after GET /read, POST /submit",
    ]);
  });

  it("is asked inside blocks too, naming the step", async () => {
    const asked: string[] = [];
    const { result } = await execute(
      `steps:
  - id: rounds
    repeat:
      max: 2
      until: "{{ true }}"
      steps:
        - id: send
          http: { url: "${base}/in-loop", method: PUT }
`,
      async (step) => {
        asked.push(step.label);
      },
    );
    expect(result.outcome).toBe("finished");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/rounds.*send/);
  });

  it("fails the step without sending it when it cannot be recorded, and retries do not help", async () => {
    const { result, events } = await execute(
      `steps:
  - id: submit
    retry: { attempts: 3 }
    http: { url: "${base}/submit", method: POST }
`,
      async () => {
        throw new Error("database unreachable");
      },
    );
    expect(seen).toEqual([]);
    expect(result.outcome).toBe("failed");
    if (result.outcome !== "failed") return;
    expect(result.error).toEqual({
      step: "submit",
      message:
        "could not record that this step may have effects, so it did not run: database unreachable",
    });
    expect(events.filter((event) => event.type === "step_started")).toHaveLength(1);
  });

  it("is not asked when the skill says on_worker_loss: restart, nor for a run that only reads", async () => {
    let asked = 0;
    const record = async () => {
      asked += 1;
    };
    const restart = await execute(
      `on_worker_loss: restart
steps:
  - http: { url: "${base}/submit", method: POST }
`,
      record,
    );
    const reads = await execute(
      `steps:
  - http: { url: "${base}/read" }
  - wait: 1ms
  - set: { a: 1 }
`,
      record,
    );
    expect([restart.result.outcome, reads.result.outcome]).toEqual(["finished", "finished"]);
    expect(asked).toBe(0);
  });
});
