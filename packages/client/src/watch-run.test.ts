import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "./errors.js";
import { clientFor, startTestServer, type TestServer } from "./test-support/fixtures.js";
import { type RunEvent, watchRun } from "./watch-run.js";

const STEPPING = `
id: skill_stepping
name: Stepping
steps:
  - log: one
  - wait: 200ms
  - log: two
  - set: { done: true }
`;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ worker: { concurrency: 2 } });
});
afterAll(async () => {
  await server?.close();
});

async function collect(events: AsyncIterable<RunEvent>): Promise<RunEvent[]> {
  const seen: RunEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

/** A client of a fresh owner with the stepping skill, a run of it, and its whole log once ended. */
async function steppingRun(owner: string, fetch?: (request: Request) => Promise<Response>) {
  await server.importSkillYaml(owner, STEPPING);
  const client = await clientFor(server, owner, fetch ? { fetch } : {});
  const { data } = await client.POST("/run/", { body: { skill_id: "skill_stepping" } });
  const id = data?.id ?? "";
  const log = async () =>
    (await client.GET("/run/{id}/events", { params: { path: { id }, query: { limit: 1000 } } }))
      .data ?? [];
  return { client, id, log };
}

describe("watchRun", () => {
  it("yields the run's events as they happen and ends after its last", async () => {
    const { client, id, log } = await steppingRun("alice");
    const seen = await collect(watchRun(client, id));
    expect(seen.at(-1)?.type).toBe("run_finished");
    expect(seen).toEqual(await log());
  });

  it("starts after a given event", async () => {
    const { client, id, log } = await steppingRun("bob");
    const all = await collect(watchRun(client, id));
    const rest = await collect(watchRun(client, id, { after: all[1]?.id }));
    expect(rest).toEqual((await log()).slice(2));
  });

  it("opens a closed stream again from the last event, missing and repeating none", async () => {
    const streams: Request[] = [];
    // The first stream is cut after its first message, as a proxy or a restart would.
    const cutting = async (request: Request) => {
      const response = await globalThis.fetch(request);
      if (!request.url.endsWith("/events/stream")) return response;
      streams.push(request);
      if (streams.length > 1 || response.body === null) return response;
      const reader = response.body.getReader();
      let text = "";
      while (!text.includes("\n\n")) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      await reader.cancel();
      const first = text.slice(0, text.indexOf("\n\n") + 2);
      return new Response(first, { status: 200, headers: response.headers });
    };
    const { client, id, log } = await steppingRun("carol", cutting);
    const seen = await collect(watchRun(client, id, { reconnectDelayMs: 10 }));
    const all = await log();
    expect(seen).toEqual(all);
    expect(streams.length).toBeGreaterThanOrEqual(2);
    expect(streams[0]?.headers.get("last-event-id")).toBeNull();
    expect(streams[1]?.headers.get("last-event-id")).toBe(String(all[0]?.id));
  });

  it("throws an ApiError for a run the caller does not have", async () => {
    const client = await clientFor(server, "dave");
    const watching = collect(watchRun(client, "run_0190a9f4-6c1b-7d3a-9b1e-2f4c5d6e7f80"));
    await expect(watching).rejects.toBeInstanceOf(ApiError);
    await expect(watching).rejects.toMatchObject({ status: 404 });
  });
});
